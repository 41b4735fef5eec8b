"""Buggy (torch): the Perceiver IO MultiHeadAttention of esceptico/perceiver-io, written after it
as it shipped before its fix (issue #9, "Bug in MultiHeadAttention"; fixed by ea7f82c, "Attention
scale bug (#10)"): `scale` is head_dim**-0.5 and the scores are divided by it, so they are
multiplied by sqrt(head_dim). Cross-attention called as self-attention: forward(inputs_kv,
inputs_q, attention_mask=None), the keys' and values' input first; four maps `k`, `q`, `v`
(with bias) and `projection`; heads as (b, heads, n, head_dim); an optional 0/1 mask (b, n, m)
added as (1 - mask) * the lowest finite value, and the masked weights zeroed after dropout.

after: esceptico/perceiver-io src/perceiver_io/attention.py
commit: 6b6507334451f61eeb073665b62f00d26f331893
licence: MIT
target: attn
expected: buggy scale-inverted
"""

import torch
from torch import nn


class MultiHeadAttention(nn.Module):
    def __init__(
        self, kv_dim, q_dim, *, qk_out_dim=None, v_out_dim=None, output_dim=None, num_heads=1,
        dropout=0.0,
    ):  # fmt: skip
        super().__init__()
        qk_out_dim = qk_out_dim or q_dim
        v_out_dim = v_out_dim or qk_out_dim
        self.num_heads = num_heads
        self.qk_head_dim, self.v_head_dim = qk_out_dim // num_heads, v_out_dim // num_heads
        self.k, self.q = nn.Linear(kv_dim, qk_out_dim), nn.Linear(q_dim, qk_out_dim)
        self.v = nn.Linear(kv_dim, v_out_dim)
        self.projection = nn.Linear(v_out_dim, output_dim or v_out_dim)
        self.dropout = nn.Dropout(dropout)
        self.scale = self.qk_head_dim**-0.5

    def heads(self, t, size):  # (b, s, heads * size) -> (b, heads, s, size)
        return t.unflatten(-1, (-1, size)).transpose(1, 2)

    def forward(self, inputs_kv, inputs_q, attention_mask=None):
        k = self.heads(self.k(inputs_kv), self.qk_head_dim)
        q = self.heads(self.q(inputs_q), self.qk_head_dim)
        v = self.heads(self.v(inputs_kv), self.v_head_dim)
        scores = q @ k.transpose(-2, -1) / self.scale  # the shipped bug: / instead of *
        if attention_mask is not None:
            scores = scores + (1 - attention_mask) * torch.finfo(scores.dtype).min
        weights = self.dropout(scores.softmax(dim=-1))
        if attention_mask is not None:
            weights = weights.masked_fill(attention_mask == 0, 0.0)
        return self.projection((weights @ v).transpose(1, 2).flatten(2))


torch.manual_seed(0)
attn = MultiHeadAttention(32, 32, num_heads=4)
