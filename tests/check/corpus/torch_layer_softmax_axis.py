"""Buggy (torch): a layer in lucidrains' style (a LayerNorm on x first, one `to_qkv` map
chunked in three, `heads`, `to_out` as Linear then Dropout) whose softmax runs over the
queries, dim=-2."""

import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim: int = 16, heads: int = 2, dim_head: int = 8):
        super().__init__()
        inner = heads * dim_head
        self.heads = heads
        self.scale = dim_head**-0.5
        self.norm = nn.LayerNorm(dim)
        self.to_qkv = nn.Linear(dim, inner * 3, bias=False)
        self.to_out = nn.Sequential(nn.Linear(inner, dim), nn.Dropout(0.1))

    def forward(self, x):
        b, n, _ = x.shape
        x = self.norm(x)
        q, k, v = (
            t.reshape(b, n, self.heads, -1).transpose(1, 2) for t in self.to_qkv(x).chunk(3, dim=-1)
        )
        dots = q @ k.transpose(-1, -2) * self.scale
        attn = dots.softmax(dim=-2)
        out = (attn @ v).transpose(1, 2).reshape(b, n, -1)
        return self.to_out(out)


torch.manual_seed(0)
attend = Attention()
