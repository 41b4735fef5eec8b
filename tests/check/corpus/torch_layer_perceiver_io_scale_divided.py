"""Buggy (torch), shipped: Perceiver IO's MultiHeadAttention (forward(inputs_kv, inputs_q), maps
`k`, `q`, `v`, `projection`, heads split by `view(..., heads, head_dim).transpose(-3, -2)`) kept
`self.scale = qk_head_dim ** -0.5` and divided the scores by it, multiplying them by sqrt(d)
(esceptico/perceiver-io#9, fixed the same day).

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
        self,
        kv_dim,
        q_dim,
        *,
        qk_out_dim=None,
        v_out_dim=None,
        output_dim=None,
        num_heads=1,
        dropout=0.0,
    ):
        super().__init__()
        qk_out_dim = qk_out_dim or q_dim
        v_out_dim = v_out_dim or qk_out_dim
        output_dim = output_dim or v_out_dim
        self.num_heads = num_heads
        self.qk_head_dim = qk_out_dim // num_heads
        self.v_head_dim = v_out_dim // num_heads
        self.k = nn.Linear(kv_dim, qk_out_dim)
        self.q = nn.Linear(q_dim, qk_out_dim)
        self.v = nn.Linear(kv_dim, v_out_dim)
        self.projection = nn.Linear(v_out_dim, output_dim)
        self.dropout = nn.Dropout(dropout)
        self.scale = self.qk_head_dim**-0.5

    def split_heads(self, x, head_dim):
        *lead, n, _ = x.size()
        return x.view(*lead, n, self.num_heads, head_dim).transpose(-3, -2)

    def forward(self, inputs_kv, inputs_q, attention_mask=None):
        k = self.split_heads(self.k(inputs_kv), self.qk_head_dim)
        q = self.split_heads(self.q(inputs_q), self.qk_head_dim)
        v = self.split_heads(self.v(inputs_kv), self.v_head_dim)
        scores = q @ k.transpose(-2, -1) / self.scale  # the shipped bug
        if attention_mask is not None:
            scores = scores + (1 - attention_mask) * torch.finfo(scores.dtype).min
        weights = self.dropout(scores.softmax(dim=-1))
        out = (weights @ v).transpose(-3, -2)
        return self.projection(out.reshape(*out.shape[:-2], -1))


torch.manual_seed(0)
attn = MultiHeadAttention(32, 32, num_heads=4)
