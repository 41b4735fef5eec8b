"""Correct (torch): Stable Diffusion's CrossAttention (ldm/modules/attention.py, the version
with memory-sliced einsum), on the CPU path for small inputs: called as layer(x, context=None,
mask=None), self-attention when no context is given; maps `to_q`, `to_k`, `to_v` without bias,
`heads` heads moved into the batch axis, k (not the scores) multiplied by dim_head**-0.5,
softmax in the scores' dtype, and `to_out` a Sequential of a Linear and a Dropout. einops'
rearrange is written here as reshape and permute.

repository: CompVis/stable-diffusion
path: ldm/modules/attention.py
commit: 09bf6dd7c1d3f4c1add1a8de6fd4acce075b9477
licence: CreativeML OpenRAIL-M (the repository's licence)
target: attn
expected: ok
"""

from torch import einsum, nn


def default(val, d):
    return val if val is not None else d


def split_heads(t, h):  # 'b n (h d) -> (b h) n d'
    b, n, _ = t.shape
    return t.reshape(b, n, h, -1).permute(0, 2, 1, 3).reshape(b * h, n, -1)


def join_heads(t, h):  # '(b h) n d -> b n (h d)'
    bh, n, d = t.shape
    return t.reshape(bh // h, h, n, d).permute(0, 2, 1, 3).reshape(bh // h, n, h * d)


class CrossAttention(nn.Module):
    def __init__(self, query_dim, context_dim=None, heads=8, dim_head=64, dropout=0.0):
        super().__init__()
        inner_dim = dim_head * heads
        context_dim = default(context_dim, query_dim)
        self.scale = dim_head**-0.5
        self.heads = heads
        self.to_q = nn.Linear(query_dim, inner_dim, bias=False)
        self.to_k = nn.Linear(context_dim, inner_dim, bias=False)
        self.to_v = nn.Linear(context_dim, inner_dim, bias=False)
        self.to_out = nn.Sequential(nn.Linear(inner_dim, query_dim), nn.Dropout(dropout))

    def einsum_op_compvis(self, q, k, v):
        s = einsum("b i d, b j d -> b i j", q, k)
        s = s.softmax(dim=-1, dtype=s.dtype)
        return einsum("b i j, b j d -> b i d", s, v)

    def forward(self, x, context=None, mask=None):
        h = self.heads
        q = self.to_q(x)
        context = default(context, x)
        k = self.to_k(context) * self.scale
        v = self.to_v(context)
        del context, x
        q, k, v = (split_heads(t, h) for t in (q, k, v))
        r = self.einsum_op_compvis(q, k, v)
        return self.to_out(join_heads(r, h))


attn = CrossAttention(query_dim=16, heads=2, dim_head=8)
