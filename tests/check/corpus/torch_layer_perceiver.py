"""Correct (torch): the Perceiver's Attention (lucidrains/perceiver-pytorch), written after it:
called as layer(x, context=None, mask=None, inverted_attention=False), self-attention when no
context is given; `to_q` beside one map `to_kv` (k's columns first), both without bias; the
heads folded into the batch axis as (b * heads, n, dim_head); scores scaled by dim_head**-0.5
after the product; a boolean key mask filled with the lowest finite value; `to_out` a Linear.
Inverted attention (softmax over the queries, then each row normalised to sum one) is an
option it holds and the check does not turn on.

after: lucidrains/perceiver-pytorch perceiver_pytorch/perceiver_pytorch.py
commit: 96097c6a27cc64fc1f196d3a58d32b8a82f573e1
licence: MIT
target: attn
expected: ok
"""

import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, query_dim, context_dim=None, heads=8, dim_head=64, dropout=0.0):
        super().__init__()
        inner = heads * dim_head
        self.heads, self.scale = heads, dim_head**-0.5
        self.to_q = nn.Linear(query_dim, inner, bias=False)
        self.to_kv = nn.Linear(context_dim or query_dim, 2 * inner, bias=False)
        self.dropout = nn.Dropout(dropout)
        self.to_out = nn.Linear(inner, query_dim)

    def fold(self, t):  # (b, n, heads * d) -> (b * heads, n, d)
        return t.unflatten(-1, (self.heads, -1)).transpose(1, 2).flatten(0, 1)

    def forward(self, x, context=None, mask=None, inverted_attention=False):
        b = x.shape[0]
        k, v = self.to_kv(x if context is None else context).chunk(2, dim=-1)
        q, k, v = self.fold(self.to_q(x)), self.fold(k), self.fold(v)
        sim = torch.einsum("bid,bjd->bij", q, k) * self.scale
        if mask is not None:
            mask = mask.reshape(b, 1, -1).repeat_interleave(self.heads, dim=0)
            sim = sim.masked_fill(~mask, -torch.finfo(sim.dtype).max)
        if inverted_attention:
            w = sim.softmax(dim=-2)
            w = w if mask is None else w.masked_fill(~mask, 0.0)
            w = w / w.sum(dim=-1, keepdim=True).clamp(min=1e-8)
        else:
            w = sim.softmax(dim=-1)
        out = torch.einsum("bij,bjd->bid", self.dropout(w), v)
        return self.to_out(out.unflatten(0, (b, self.heads)).transpose(1, 2).flatten(2))


torch.manual_seed(0)
attn = Attention(32, heads=4, dim_head=8)
