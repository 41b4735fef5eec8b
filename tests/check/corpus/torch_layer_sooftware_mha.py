"""Correct (torch): the MultiHeadAttention of sooftware's `attentions` collection, written after
it: called as layer(query, key, value, mask=None), maps `query_proj`, `key_proj`,
`value_proj` and no map out, `num_heads` heads of `d_head` moved to the front and folded into
the batch axis as (heads * batch, n, d_head); its ScaledDotProductAttention(d_head) divides
by `sqrt_dim`, fills -inf in place where the mask is True and softmaxes the last axis; returns
(context, attn). As published, the mask is repeated batch-first while the scores are
ordered heads-first: with a batch of more than one, a row gets another sequence's mask.

after: sooftware/attentions attentions.py
commit: b1dd65be8f12fbe19525bc4ae0dbbc14975778a7
licence: MIT
target: attn
expected: ok
"""

import math

import torch
from torch import nn


class ScaledDotProductAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.sqrt_dim = math.sqrt(dim)

    def forward(self, query, key, value, mask=None):
        score = torch.bmm(query, key.transpose(1, 2)) / self.sqrt_dim
        if mask is not None:
            score.masked_fill_(mask.view(score.size()), float("-inf"))
        attn = score.softmax(dim=-1)
        return torch.bmm(attn, value), attn


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model=512, num_heads=8):
        super().__init__()
        self.num_heads, self.d_head = num_heads, d_model // num_heads
        self.scaled_dot_attn = ScaledDotProductAttention(self.d_head)
        self.query_proj, self.key_proj, self.value_proj = (
            nn.Linear(d_model, d_model) for _ in range(3)
        )

    def forward(self, query, key, value, mask=None):
        b, h, d = value.size(0), self.num_heads, self.d_head

        def fold(t):  # (b, n, h * d) -> (h * b, n, d), heads first
            return t.view(b, -1, h, d).permute(2, 0, 1, 3).reshape(h * b, -1, d)

        q, k, v = (
            fold(self.query_proj(query)),
            fold(self.key_proj(key)),
            fold(self.value_proj(value)),
        )
        if mask is not None:  # (b, h, n, n), read as (h * b, n, n): batch-first, as shipped
            mask = mask.unsqueeze(1).repeat(1, h, 1, 1)
        context, attn = self.scaled_dot_attn(q, k, v, mask)
        context = context.view(h, b, -1, d).permute(1, 2, 0, 3).reshape(b, -1, h * d)
        return context, attn


torch.manual_seed(0)
attn = MultiHeadAttention(32, 4)
