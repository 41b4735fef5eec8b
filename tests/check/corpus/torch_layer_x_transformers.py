"""Correct (torch): x-transformers' Attention (lucidrains/x-transformers), written after it:
forward(x, context=None, mask=None, ...), self-attention when no context is given; `to_q`,
`to_k`, `to_v` without bias and `to_out`; grouped-query attention (`kv_heads` below `heads`,
each k, v head repeated for its group of q heads); QK-norm as scaled cosine attention (q and k
L2-normalised, then multiplied by a per-dimension scale that is the number 1 unless
`qk_norm_dim_scale`, the scores times a fixed `qk_norm_scale` of 10, not 1/sqrt(d)); causal by
an attribute, the triangle filled with minus the largest finite value; einsum products.

after: lucidrains/x-transformers x_transformers/x_transformers.py
commit: 9de5a5cb7f2d0c478275f607a3d08285effae71a
licence: MIT
target: attn
expected: ok
"""

import torch
import torch.nn.functional as F
from torch import nn


class Attention(nn.Module):
    def __init__(
        self, dim, dim_head=64, heads=8, causal=False, dropout=0.0, kv_heads=None,
        qk_norm=False, qk_norm_scale=10,
    ):  # fmt: skip
        super().__init__()
        self.heads, self.kv_heads = heads, kv_heads or heads
        self.causal, self.qk_norm = causal, qk_norm
        self.scale = qk_norm_scale if qk_norm else dim_head**-0.5
        self.qk_norm_q_scale = self.qk_norm_k_scale = 1
        self.to_q = nn.Linear(dim, heads * dim_head, bias=False)
        self.to_k = nn.Linear(dim, self.kv_heads * dim_head, bias=False)
        self.to_v = nn.Linear(dim, self.kv_heads * dim_head, bias=False)
        self.dropout = nn.Dropout(dropout)
        self.to_out = nn.Linear(heads * dim_head, dim, bias=False)

    def forward(self, x, context=None, mask=None, context_mask=None, rel_pos=None):
        kv_input = x if context is None else context
        q = self.to_q(x).unflatten(-1, (self.heads, -1)).transpose(1, 2)
        k, v = (
            m(kv_input).unflatten(-1, (self.kv_heads, -1)).transpose(1, 2)
            for m in (self.to_k, self.to_v)
        )
        if self.qk_norm:
            q = F.normalize(q, dim=-1) * self.qk_norm_q_scale
            k = F.normalize(k, dim=-1) * self.qk_norm_k_scale
        if self.kv_heads < self.heads:  # each k, v head serves heads // kv_heads q heads
            group = self.heads // self.kv_heads
            b, _, n, d = k.shape  # (b, kv_heads, n, d) -> (b, group * kv_heads, n, d)
            k, v = (t.unsqueeze(1).expand(b, group, -1, n, d).reshape(b, -1, n, d) for t in (k, v))
        sim = torch.einsum("bhid,bhjd->bhij", q, k) * self.scale
        lowest = -torch.finfo(sim.dtype).max
        if mask is not None:
            sim = sim.masked_fill(~mask[:, None, None, :], lowest)
        if self.causal:
            i, j = sim.shape[-2:]
            future = torch.ones(i, j, dtype=torch.bool, device=sim.device).triu(j - i + 1)
            sim = sim.masked_fill(future, lowest)
        attn = self.dropout(sim.softmax(dim=-1))
        out = torch.einsum("bhij,bhjd->bhid", attn, v)
        return self.to_out(out.transpose(1, 2).flatten(2))


torch.manual_seed(0)
attn = Attention(32, dim_head=8, heads=4, causal=True, kv_heads=2, qk_norm=True)
