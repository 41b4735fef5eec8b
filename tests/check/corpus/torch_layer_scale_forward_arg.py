"""Correct: a layer whose forward takes the score scale (`scale=None`: 1/sqrt(head size) when
not given, as F.scaled_dot_product_attention's), checked with `--arg scale=0.3`: the scale the
caller passes is the layer's own (wrong-output before: the run that read the layer was made
without it, and the reference scaled by 1/sqrt(8))."""

import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim=32, num_heads=4):
        super().__init__()
        self.num_heads = num_heads
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, scale=None):
        b, n, c = x.shape
        qkv = self.qkv(x).reshape(b, n, 3, self.num_heads, c // self.num_heads)
        q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)
        scale = q.shape[-1] ** -0.5 if scale is None else scale
        weights = ((q @ k.transpose(-2, -1)) * scale).softmax(dim=-1)
        return self.proj((weights @ v).transpose(1, 2).reshape(b, n, c))


torch.manual_seed(0)
attn = Attention()
