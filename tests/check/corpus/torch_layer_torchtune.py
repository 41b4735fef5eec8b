"""Correct (torch): torchtune's MultiHeadAttention, condensed: `q_proj`, `k_proj`, `v_proj`
applied to x and to y (the input for k and v: the same x for self-attention), the heads joined
by `output_proj`, a name no table held; causal through F.scaled_dot_product_attention's
is_causal when no mask is given. Without a kv-cache, y is required although it defaults to
None: called with x alone it raises.

repository: pytorch/torchtune
path: torchtune/modules/attention.py
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
        self.num_heads, self.num_kv_heads, self.head_dim = num_heads, num_kv_heads, head_dim
        self.embed_dim, self.is_causal, self.attn_dropout = embed_dim, is_causal, attn_dropout
        self.kv_cache = kv_cache
        self.q_proj, self.k_proj, self.v_proj = q_proj, k_proj, v_proj
        self.output_proj = output_proj

    def forward(self, x, y=None, *, mask=None, input_pos=None):
        b, s_x, _ = x.shape
        q = self.q_proj(x).view(b, s_x, self.num_heads, self.head_dim).transpose(1, 2)
        if y is None:
            raise ValueError("Must provide y input or use kv_cache to enable streaming decoding")
        s_y = y.shape[1]
        k = self.k_proj(y).view(b, s_y, -1, self.head_dim).transpose(1, 2)
        v = self.v_proj(y).view(b, s_y, -1, self.head_dim).transpose(1, 2)
        output = F.scaled_dot_product_attention(
            q,
            k,
            v,
            attn_mask=mask,
            dropout_p=self.attn_dropout if self.training else 0.0,
            is_causal=self.kv_cache is None and mask is None and self.is_causal,
        )
        output = output.transpose(1, 2).contiguous().view(b, s_x, -1)
        return self.output_proj(output)


def _linear():
    return nn.Linear(16, 16, bias=False)


attn = MultiHeadAttention(
    embed_dim=16,
    num_heads=4,
    num_kv_heads=4,
    head_dim=4,
    q_proj=_linear(),
    k_proj=_linear(),
    v_proj=_linear(),
    output_proj=_linear(),
)
