"""Correct (torch): a vision transformer's attention (timm style): a fused `qkv` map without
bias, reshaped to (3, B, heads, N, head_dim), every patch seeing every other, and `proj`."""

import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim: int = 16, num_heads: int = 4, qkv_bias: bool = False):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = dim // num_heads
        self.scale = self.head_dim**-0.5
        self.qkv = nn.Linear(dim, dim * 3, bias=qkv_bias)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, self.head_dim).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        attn = (q * self.scale) @ k.transpose(-2, -1)
        attn = attn.softmax(dim=-1)
        x = (attn @ v).transpose(1, 2).reshape(B, N, C)
        return self.proj(x)


torch.manual_seed(0)
attn = Attention()
