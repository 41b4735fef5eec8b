"""Correct (torch): the attention block of Mamba's hybrid models, written after mamba_ssm's MHA:
one fused `in_proj` making q and then k, v as "(two hkv d)" (k and v interleaved per pair, not
side by side), `out_proj`, causal by a constructor flag, F.scaled_dot_product_attention with
`scale=self.softmax_scale` (None: 1/sqrt(head_dim)), an `inference_params` for generation.

after: state-spaces/mamba mamba_ssm/modules/mha.py
commit: 60dadf2e0ee730ac337035d5533de10bc26e4847
licence: Apache-2.0
target: attn
expected: ok
"""

import torch
import torch.nn.functional as F
from torch import nn


class MHA(nn.Module):
    def __init__(self, embed_dim, num_heads, num_heads_kv=None, softmax_scale=None, causal=False):
        super().__init__()
        self.num_heads = num_heads
        self.num_heads_kv = num_heads_kv if num_heads_kv is not None else num_heads
        self.head_dim = embed_dim // num_heads
        self.softmax_scale = softmax_scale
        self.causal = causal
        qkv_dim = self.head_dim * (self.num_heads + 2 * self.num_heads_kv)
        self.in_proj = nn.Linear(embed_dim, qkv_dim)
        self.out_proj = nn.Linear(self.head_dim * num_heads, embed_dim)

    def forward(self, x, inference_params=None):
        qkv = self.in_proj(x)
        q, kv = qkv.split(
            [self.num_heads * self.head_dim, self.num_heads_kv * 2 * self.head_dim], dim=-1
        )
        q = q.unflatten(-1, (self.num_heads, self.head_dim))
        kv = kv.unflatten(-1, (2, self.num_heads_kv, self.head_dim))
        k, v = kv.unbind(dim=-3)
        context = F.scaled_dot_product_attention(
            q.transpose(1, 2),
            k.transpose(1, 2),
            v.transpose(1, 2),
            is_causal=self.causal,
            scale=self.softmax_scale,
        ).transpose(1, 2)
        return self.out_proj(context.flatten(-2))


torch.manual_seed(0)
attn = MHA(32, 4, causal=True)
