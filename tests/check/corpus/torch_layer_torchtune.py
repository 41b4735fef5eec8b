"""Correct (torch): torchtune's MultiHeadAttention, written after it: built from keyword
arguments, the maps `q_proj`, `k_proj`, `v_proj`, `output_proj` handed in as modules; q from
x, k and v from y (the same x for self-attention); causal through
F.scaled_dot_product_attention's is_causal when no mask and no kv-cache are given. Without a
kv-cache y is required although it defaults to None: called with x alone it raises.

after: pytorch/torchtune torchtune/modules/attention.py
commit: 90d5ba51861259b2a94dab524f246acaf196a042
licence: BSD-3-Clause
target: attn
expected: ok
"""

import torch.nn.functional as F
from torch import nn


class MultiHeadAttention(nn.Module):
    def __init__(
        self,
        *,
        embed_dim,
        num_heads,
        num_kv_heads,
        head_dim,
        q_proj,
        k_proj,
        v_proj,
        output_proj,
        kv_cache=None,
        is_causal=True,
        attn_dropout=0.0,
    ):
        super().__init__()
        self.embed_dim, self.num_heads, self.num_kv_heads, self.head_dim = (
            embed_dim,
            num_heads,
            num_kv_heads,
            head_dim,
        )
        self.q_proj, self.k_proj, self.v_proj, self.output_proj = (
            q_proj,
            k_proj,
            v_proj,
            output_proj,
        )
        self.kv_cache, self.is_causal, self.attn_dropout = kv_cache, is_causal, attn_dropout

    def forward(self, x, y=None, *, mask=None, input_pos=None):
        if y is None:
            raise ValueError("y is needed when there is no kv-cache")
        b, n, _ = x.shape

        def heads(t):
            return t.view(b, t.shape[1], -1, self.head_dim).transpose(1, 2)

        out = F.scaled_dot_product_attention(
            heads(self.q_proj(x)),
            heads(self.k_proj(y)),
            heads(self.v_proj(y)),
            attn_mask=mask,
            dropout_p=self.attn_dropout if self.training else 0.0,
            is_causal=self.kv_cache is None and mask is None and self.is_causal,
        )
        return self.output_proj(out.transpose(1, 2).reshape(b, n, -1))


attn = MultiHeadAttention(
    embed_dim=16,
    num_heads=4,
    num_kv_heads=4,
    head_dim=4,
    q_proj=nn.Linear(16, 16, bias=False),
    k_proj=nn.Linear(16, 16, bias=False),
    v_proj=nn.Linear(16, 16, bias=False),
    output_proj=nn.Linear(16, 16, bias=False),
)
