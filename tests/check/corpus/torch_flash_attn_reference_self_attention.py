"""Correct (torch): flash-attention's SelfAttention module, the plain-torch one beside the fused
kernels, written after it: no weights, q, k, v packed as qkv (batch, n, 3, heads, d) and
unbound, the scale folded into k, a (batch, n) boolean `key_padding_mask` (True = keep)
turned into -10000 added to the scores, a causal flag at construction or per call.

Known miss (issue 47, eighth round): exits 2. Its first argument is q, k, v packed as
(batch, n, 3, heads, d), and the checker binds (qkv, causal, key_padding_mask) as (q, k, v):
"got multiple values for argument 'causal'". A packed-qkv input is no layout it tries.

after: Dao-AILab/flash-attention flash_attn/modules/mha.py
commit: e6ecd3f522ab64c5e809fbdad19d8933b3eb434f
licence: BSD-3-Clause
target: attn
expected: error
"""

import math

import torch
from torch import nn


class SelfAttention(nn.Module):
    def __init__(self, causal=False, softmax_scale=None, attention_dropout=0.0):
        super().__init__()
        self.causal = causal
        self.softmax_scale = softmax_scale
        self.drop = nn.Dropout(attention_dropout)

    def forward(self, qkv, causal=None, key_padding_mask=None):
        batch_size, seqlen = qkv.shape[0], qkv.shape[1]
        causal = self.causal if causal is None else causal
        q, k, v = qkv.unbind(dim=2)
        softmax_scale = self.softmax_scale or 1.0 / math.sqrt(q.shape[-1])
        scores = torch.einsum("bthd,bshd->bhts", q, k * softmax_scale)
        if key_padding_mask is not None:
            padding_mask = torch.full((batch_size, seqlen), -10000.0, dtype=scores.dtype)
            padding_mask.masked_fill_(key_padding_mask, 0.0)
            scores = scores + padding_mask[:, None, None, :]
        if causal:
            causal_mask = torch.triu(torch.full((seqlen, seqlen), -10000.0), 1)
            scores = scores + causal_mask.to(dtype=scores.dtype)
        attention = torch.softmax(scores, dim=-1, dtype=v.dtype)
        return torch.einsum("bhts,bshd->bthd", self.drop(attention), v)


attn = SelfAttention()
