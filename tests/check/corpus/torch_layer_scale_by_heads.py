"""Buggy (torch): a vision-transformer Attention written as timm's is, whose constructor sets
`self.scale = num_heads ** -0.5`, the head count's, where the head size's (`head_dim ** -0.5`)
is meant: a slip that shipped in a major vision library's layer. Built with its defaults
(4 heads of size 8 in a width of 32) it scales by 0.5, not 1/sqrt(8). Before the scale rule
it checked ok, the scale taken as "the scale the layer was built with"."""

import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim, num_heads=4, qkv_bias=False, attn_drop=0.0, proj_drop=0.0):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = dim // num_heads
        self.scale = num_heads**-0.5  # the slip: the head count, not head_dim
        self.qkv = nn.Linear(dim, dim * 3, bias=qkv_bias)
        self.attn_drop = nn.Dropout(attn_drop)
        self.proj = nn.Linear(dim, dim)
        self.proj_drop = nn.Dropout(proj_drop)

    def forward(self, x):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, self.head_dim).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        attn = (q @ k.transpose(-2, -1)) * self.scale
        attn = self.attn_drop(attn.softmax(dim=-1))
        x = (attn @ v).transpose(1, 2).reshape(B, N, C)
        return self.proj_drop(self.proj(x))


torch.manual_seed(0)
attn = Attention(32)
