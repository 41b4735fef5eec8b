"""Correct: a vision-transformer Attention built with a score scale of its own, as timm's (to
0.4) and Swin v1's `qk_scale=` allow, kept under a name no table holds (`logit_factor`): the
scores are q k^T times 0.25 where 1/sqrt(8) would be 0.354. The scale is read from the run
(q k^T against what the softmax got) and, since an attribute holds it and it is no known
bug's scale, taken as the layer's own. Before the trace read the scale: wrong-output."""

import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim, num_heads=8, qkv_bias=False, qk_scale=None):
        super().__init__()
        self.num_heads = num_heads
        head_dim = dim // num_heads
        self.logit_factor = qk_scale or head_dim**-0.5
        self.qkv = nn.Linear(dim, dim * 3, bias=qkv_bias)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        b, n, c = x.shape
        qkv = self.qkv(x).reshape(b, n, 3, self.num_heads, c // self.num_heads)
        q, k, v = qkv.permute(2, 0, 3, 1, 4)
        attn = (q * self.logit_factor) @ k.transpose(-2, -1)
        attn = attn.softmax(dim=-1)
        return self.proj((attn @ v).transpose(1, 2).reshape(b, n, c))


torch.manual_seed(0)
attn = Attention(32, num_heads=4, qk_scale=0.25)
