"""Buggy (torch): vit-pytorch's Attention (lucidrains) as it shipped in 0.6.6, written after it,
before 85314cf ("patch for scaling factor", January 2021) answered issue #65 ("doubt about
scale in Attantion"): the scale is the model width's, `dim ** -0.5`, not the head size's, so
with heads of 8 in a width of 32 the scores are halved. Its conventions: one map `to_qkv`
without bias, chunked in three and split as (b, heads, n, dim_head); scores by einsum; an
optional patch mask, padded by one for the class token and made square, filling with the
lowest finite value; `to_out` a Linear and a Dropout.

after: lucidrains/vit-pytorch vit_pytorch/vit_pytorch.py
commit: 5db8d9deedd64537d0098940634ce0506576be13
licence: MIT
target: attn
expected: buggy scale-wrong
"""

import torch
import torch.nn.functional as F
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim, heads=8, dim_head=64, dropout=0.0):
        super().__init__()
        inner = heads * dim_head
        self.heads = heads
        self.scale = dim**-0.5  # the shipped bug: the width, not dim_head
        self.to_qkv = nn.Linear(dim, 3 * inner, bias=False)
        self.to_out = nn.Sequential(nn.Linear(inner, dim), nn.Dropout(dropout))

    def forward(self, x, mask=None):
        q, k, v = (
            t.unflatten(-1, (self.heads, -1)).transpose(1, 2)
            for t in self.to_qkv(x).chunk(3, dim=-1)
        )
        scores = torch.einsum("bhqd,bhkd->bhqk", q, k) * self.scale
        if mask is not None:
            keep = F.pad(mask.flatten(1), (1, 0), value=True)  # the class token is always kept
            keep = keep[:, None, :] & keep[:, :, None]
            scores = scores.masked_fill(~keep[:, None], -torch.finfo(scores.dtype).max)
        out = torch.einsum("bhqk,bhkd->bhqd", scores.softmax(dim=-1), v)
        return self.to_out(out.transpose(1, 2).flatten(2))


torch.manual_seed(0)
attn = Attention(32, heads=4, dim_head=8)
