"""Correct (torch): an attention layer written as lucidrains' are, whose heads are `dim_head`
wide whatever the model width (4 heads of 16 in a width of 32, mapped back by `to_out`), scaled
by `dim_head ** -0.5`: the width q k^T contracts."""

import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim, heads=4, dim_head=16, dropout=0.0):
        super().__init__()
        inner_dim = dim_head * heads
        self.heads = heads
        self.scale = dim_head**-0.5
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
