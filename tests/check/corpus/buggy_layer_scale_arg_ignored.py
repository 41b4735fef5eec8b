"""Buggy: the layer of torch_layer_scale_forward_arg.py's style whose forward takes `scale` and
never uses it (always 1/sqrt(head size)); checked with `--arg scale=0.3` it must say
scale-wrong, the caller's scale ignored (ok before: the run was read without the argument)."""

import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim=32, num_heads=4):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = dim // num_heads
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, scale=None):
        b, n, c = x.shape
        qkv = self.qkv(x).reshape(b, n, 3, self.num_heads, self.head_dim)
        q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)
        weights = ((q @ k.transpose(-2, -1)) * self.head_dim**-0.5).softmax(dim=-1)
        return self.proj((weights @ v).transpose(1, 2).reshape(b, n, c))


torch.manual_seed(0)
attn = Attention()
