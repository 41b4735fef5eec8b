"""Correct (torch): Stable Diffusion's CrossAttention (the version that slices its einsum to
save memory), written after it on the path small inputs take on a CPU: called as
layer(x, context=None, mask=None), self-attention when no context is given (the mask is not
read); maps `to_q`, `to_k`, `to_v` without bias, `heads` heads folded into the batch axis,
k (not the scores) multiplied by dim_head**-0.5, the softmax in the scores' dtype, and
`to_out` a Sequential of a Linear and a Dropout.

after: CompVis/stable-diffusion ldm/modules/attention.py
commit: 09bf6dd7c1d3f4c1add1a8de6fd4acce075b9477
licence: CreativeML OpenRAIL-M (the repository's licence)
target: attn
expected: ok
"""

import torch
from torch import nn


class CrossAttention(nn.Module):
    def __init__(self, query_dim, context_dim=None, heads=8, dim_head=64, dropout=0.0):
        super().__init__()
        inner, context_dim = heads * dim_head, context_dim or query_dim
        self.heads, self.scale = heads, dim_head**-0.5
        self.to_q = nn.Linear(query_dim, inner, bias=False)
        self.to_k = nn.Linear(context_dim, inner, bias=False)
        self.to_v = nn.Linear(context_dim, inner, bias=False)
        self.to_out = nn.Sequential(nn.Linear(inner, query_dim), nn.Dropout(dropout))

    def forward(self, x, context=None, mask=None):
        context = x if context is None else context
        b, h = x.shape[0], self.heads

        def fold(t):  # (b, n, h * d) -> (b * h, n, d)
            return t.unflatten(-1, (h, -1)).transpose(1, 2).flatten(0, 1)

        q, k, v = (
            fold(self.to_q(x)),
            fold(self.to_k(context) * self.scale),
            fold(self.to_v(context)),
        )
        s = torch.einsum("bid,bjd->bij", q, k)
        r = torch.einsum("bij,bjd->bid", s.softmax(dim=-1, dtype=s.dtype), v)
        return self.to_out(r.unflatten(0, (b, h)).transpose(1, 2).flatten(2))


attn = CrossAttention(query_dim=16, heads=2, dim_head=8)
