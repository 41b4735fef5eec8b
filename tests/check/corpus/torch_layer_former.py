"""Correct (torch): Peter Bloem's `former` SelfAttention, the "transformers from scratch"
layer, with its autoregressive mask on (`mask=True`, an attribute, not an argument): maps
`tokeys`, `toqueries`, `tovalues` without bias and `unifyheads` out, heads folded into the
batch axis, scores scaled by 1/sqrt(emb // heads), the upper triangle above the diagonal set
to -inf in place (util.mask_), softmax over dim=2.

repository: pbloem/former
path: former/modules.py
commit: ad9cc703b0b82a24a12e777f5946296f352c9d11
licence: MIT
target: attn
expected: ok
"""

import math

import torch
import torch.nn.functional as F
from torch import nn


def mask_(matrices, maskval=0.0, mask_diagonal=True):
    """former/util/util.py: masks out where i <= j holds, i < j if mask_diagonal is false."""
    h, w = matrices.size(-2), matrices.size(-1)
    indices = torch.triu_indices(h, w, offset=0 if mask_diagonal else 1)
    matrices[..., indices[0], indices[1]] = maskval


class SelfAttention(nn.Module):
    def __init__(self, emb, heads=8, mask=False, kqnorm=False, scalefactor=None):
        super().__init__()
        assert emb % heads == 0
        self.emb = emb
        self.heads = heads
        self.mask = mask
        s = emb // heads
        self.tokeys = nn.Linear(emb, emb, bias=False)
        self.toqueries = nn.Linear(emb, emb, bias=False)
        self.tovalues = nn.Linear(emb, emb, bias=False)
        self.unifyheads = nn.Linear(emb, emb)
        self.kqnorm = kqnorm
        if kqnorm:
            self.kln = nn.LayerNorm([s])
            self.qln = nn.LayerNorm([s])
        self.scalefactor = 1 / math.sqrt(emb // heads) if scalefactor is None else scalefactor

    def forward(self, x):
        b, t, e = x.size()
        h = self.heads
        assert e == self.emb
        s = e // h

        keys = self.tokeys(x)
        queries = self.toqueries(x)
        values = self.tovalues(x)

        keys = keys.view(b, t, h, s)
        queries = queries.view(b, t, h, s)
        values = values.view(b, t, h, s)

        if self.kqnorm:
            keys = self.kln(keys)
            queries = self.qln(queries)

        keys = keys.transpose(1, 2).contiguous().view(b * h, t, s)
        queries = queries.transpose(1, 2).contiguous().view(b * h, t, s)
        values = values.transpose(1, 2).contiguous().view(b * h, t, s)

        dot = torch.bmm(queries, keys.transpose(1, 2))
        dot = dot * self.scalefactor

        assert dot.size() == (b * h, t, t)

        if self.mask:  # mask out the upper half of the dot matrix, excluding the diagonal
            mask_(dot, maskval=float("-inf"), mask_diagonal=False)

        dot = F.softmax(dot, dim=2)

        out = torch.bmm(dot, values).view(b, h, t, s)
        out = out.transpose(1, 2).contiguous().view(b, t, s * h)

        return self.unifyheads(out)


torch.manual_seed(0)
attn = SelfAttention(32, heads=4, mask=True)
