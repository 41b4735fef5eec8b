"""Correct (torch): Peter Bloem's `former` SelfAttention ("transformers from scratch"), written
after it, with its autoregressive mask on: `mask=True` is an attribute, not an argument. Maps
`tokeys`, `toqueries`, `tovalues` without bias and `unifyheads` out, heads folded into the
batch axis, scores scaled by 1/sqrt(emb // heads), the entries above the diagonal set to -inf
in place, softmax over dim=2.

after: pbloem/former former/modules.py
commit: ad9cc703b0b82a24a12e777f5946296f352c9d11
licence: MIT
target: attn
expected: ok
"""

import math

import torch
from torch import nn


class SelfAttention(nn.Module):
    def __init__(self, emb, heads=8, mask=False):
        super().__init__()
        self.emb, self.heads, self.mask = emb, heads, mask
        self.tokeys, self.toqueries, self.tovalues = (
            nn.Linear(emb, emb, bias=False) for _ in range(3)
        )
        self.unifyheads = nn.Linear(emb, emb)

    def forward(self, x):
        b, t, e = x.size()
        h, s = self.heads, e // self.heads

        def fold(y):  # (b, t, e) -> (b * h, t, s)
            return y.view(b, t, h, s).transpose(1, 2).reshape(b * h, t, s)

        keys, queries, values = (
            fold(self.tokeys(x)),
            fold(self.toqueries(x)),
            fold(self.tovalues(x)),
        )
        dot = torch.bmm(queries, keys.transpose(1, 2)) / math.sqrt(s)
        if self.mask:
            above = torch.triu_indices(t, t, offset=1)
            dot[:, above[0], above[1]] = float("-inf")
        out = torch.bmm(dot.softmax(dim=2), values).view(b, h, t, s)
        return self.unifyheads(out.transpose(1, 2).reshape(b, t, e))


torch.manual_seed(0)
attn = SelfAttention(32, heads=4, mask=True)
