"""Correct (torch): a vision transformer's attention in vit-pytorch's style, which normalises
x itself (a LayerNorm with learned weights) before one bias-free `to_qkv` map; `to_out` is a
Linear then Dropout, the module in training mode."""

import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim: int = 16, heads: int = 4, dim_head: int = 6, dropout: float = 0.1):
        super().__init__()
        inner_dim = dim_head * heads
        self.heads = heads
        self.scale = dim_head**-0.5
        self.norm = nn.LayerNorm(dim)
        self.attend = nn.Softmax(dim=-1)
        self.dropout = nn.Dropout(dropout)
        self.to_qkv = nn.Linear(dim, inner_dim * 3, bias=False)
        self.to_out = nn.Sequential(nn.Linear(inner_dim, dim), nn.Dropout(dropout))
        with torch.no_grad():  # a trained norm, not the identity it starts as
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.uniform_(-0.3, 0.3)

    def forward(self, x):
        b, n, _ = x.shape
        x = self.norm(x)
        q, k, v = (
            t.reshape(b, n, self.heads, -1).transpose(1, 2) for t in self.to_qkv(x).chunk(3, dim=-1)
        )
        attn = self.dropout(self.attend(q @ k.transpose(-1, -2) * self.scale))
        return self.to_out((attn @ v).transpose(1, 2).reshape(b, n, -1))


torch.manual_seed(0)
attn = Attention()
