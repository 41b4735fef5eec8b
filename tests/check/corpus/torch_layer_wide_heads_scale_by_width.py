"""Buggy (torch): torch_layer_wide_heads.py's layer, heads 16 wide in a width of 32, scaled by
`(dim // heads) ** -0.5`, 1/sqrt(8), the head size the width would give, where q k^T contracts
16. Before the scale rule it read as a generic wrong-output."""

import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim, heads=4, dim_head=16, dropout=0.0):
        super().__init__()
        inner_dim = dim_head * heads
        self.heads = heads
        self.scale = (dim // heads) ** -0.5  # the slip: C / heads, not dim_head
        self.to_q = nn.Linear(dim, inner_dim, bias=False)
        self.to_k = nn.Linear(dim, inner_dim, bias=False)
        self.to_v = nn.Linear(dim, inner_dim, bias=False)
        self.to_out = nn.Sequential(nn.Linear(inner_dim, dim), nn.Dropout(dropout))

    def forward(self, x):
        b, n, _ = x.shape
        q, k, v = (
            f(x).reshape(b, n, self.heads, -1).transpose(1, 2)
            for f in (self.to_q, self.to_k, self.to_v)
        )
        dots = torch.matmul(q, k.transpose(-1, -2)) * self.scale
        out = torch.matmul(dots.softmax(dim=-1), v)
        return self.to_out(out.transpose(1, 2).reshape(b, n, -1))


torch.manual_seed(0)
attn = Attention(32)
