"""Correct (torch): vit-pytorch's Attention (lucidrains), written after it: a LayerNorm `norm`
on x first, one map `to_qkv` without bias split in three as (b, heads, n, dim_head), scores
times dim_head**-0.5 after the product, the softmax a module of its own (`attend`), dropout on
the weights, and `to_out` a Sequential of a Linear and a Dropout, or Identity when one head
as wide as x needs no map out.

after: lucidrains/vit-pytorch vit_pytorch/vit.py
commit: 69d24fe9e3024c0d4b02761123b8583a24ebed1e
licence: MIT
target: attn
expected: ok
"""

import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim, heads=8, dim_head=64, dropout=0.0):
        super().__init__()
        inner = heads * dim_head
        self.heads, self.scale = heads, dim_head**-0.5
        self.norm = nn.LayerNorm(dim)
        self.attend = nn.Softmax(dim=-1)
        self.dropout = nn.Dropout(dropout)
        self.to_qkv = nn.Linear(dim, 3 * inner, bias=False)
        mapped = heads != 1 or dim_head != dim
        self.to_out = (
            nn.Sequential(nn.Linear(inner, dim), nn.Dropout(dropout)) if mapped else nn.Identity()
        )

    def forward(self, x):
        q, k, v = (
            t.unflatten(-1, (self.heads, -1)).transpose(1, 2)
            for t in self.to_qkv(self.norm(x)).chunk(3, dim=-1)
        )
        w = self.dropout(self.attend(q @ k.transpose(-1, -2) * self.scale))
        return self.to_out((w @ v).transpose(1, 2).flatten(2))


torch.manual_seed(0)
attn = Attention(32, heads=4, dim_head=8)
