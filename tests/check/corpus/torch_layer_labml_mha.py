"""Correct (torch): labml.ai's annotated MultiHeadAttention, written after it. Its forward
takes keyword-only `query`, `key`, `value` (and `mask`), each of shape (seq_len, batch,
d_model), sequence first, with no `batch_first` to say so; each of q, k, v comes from a small
module of its own (`query`, `key`, `value`) that holds the Linear as `linear` and splits the
heads, (seq_len, batch, heads, d_k); the scores are carried as (i, j, batch, heads) by einsum,
scaled after the product, filled with -inf where the mask (i, j, batch) is 0, and the softmax
is a module over axis 1, the keys; the map out is `output`.

The check hands x by keyword as query, key and value (the forward takes nothing by
position), finds the maps under `query.linear`, ... and `output` (names.py), reads the layout
(n, batch, C) from the softmax normalising x's first axis, and the head count from the
einsum's output subscripts, not the scores' third axis from the end (j here).

after: labmlai/annotated_deep_learning_paper_implementations labml_nn/transformers/mha.py
commit: e6b3c8a6a2cdae4071bcde1abeaaf9a2bc37bd53
licence: MIT
target: attn
expected: ok
"""

import math

import torch
from torch import nn


class PrepareForMultiHeadAttention(nn.Module):
    def __init__(self, d_model, heads, d_k, bias):
        super().__init__()
        self.linear = nn.Linear(d_model, heads * d_k, bias=bias)
        self.heads, self.d_k = heads, d_k

    def forward(self, x):
        return self.linear(x).unflatten(-1, (self.heads, self.d_k))


class MultiHeadAttention(nn.Module):
    def __init__(self, heads, d_model, dropout_prob=0.1, bias=True):
        super().__init__()
        self.d_k, self.heads = d_model // heads, heads
        self.query = PrepareForMultiHeadAttention(d_model, heads, self.d_k, bias)
        self.key = PrepareForMultiHeadAttention(d_model, heads, self.d_k, bias)
        self.value = PrepareForMultiHeadAttention(d_model, heads, self.d_k, True)
        self.softmax = nn.Softmax(dim=1)
        self.output = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(dropout_prob)
        self.scale = 1 / math.sqrt(self.d_k)
        self.attn = None

    def forward(self, *, query, key, value, mask=None):
        seq_len, batch_size, _ = query.shape
        q, k, v = self.query(query), self.key(key), self.value(value)
        scores = torch.einsum("ibhd,jbhd->ijbh", q, k) * self.scale
        if mask is not None:
            scores = scores.masked_fill(mask.unsqueeze(-1) == 0, float("-inf"))
        attn = self.dropout(self.softmax(scores))
        self.attn = attn.detach()
        x = torch.einsum("ijbh,jbhd->ibhd", attn, v)
        return self.output(x.reshape(seq_len, batch_size, -1))


torch.manual_seed(0)
attn = MultiHeadAttention(4, 32)
