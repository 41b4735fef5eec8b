"""Buggy (torch): train-llm-from-scratch's MultiHeadAttention (FareedKhan-dev), written after it
as it stood before c118aaf (#3, "Fix attention scaling factor", March 2025): each head scales
its scores by 1/sqrt(C), C the width of x, instead of 1/sqrt(head_size). Its conventions: a
ModuleList `heads` of one-head layers, each with its own `key`, `query` and `value` Linears
without bias and a lower-triangular buffer `tril` for the causal mask (filled with -inf); the
heads' outputs concatenated, with no map out.

after: FareedKhan-dev/train-llm-from-scratch src/models/attention.py
commit: e4fc78006c65f513a18aaa04a0802a7c26802d3b
licence: MIT
target: attn
expected: buggy scale-wrong
"""

import math

import torch
from torch import nn


class Head(nn.Module):
    def __init__(self, head_size, n_embed, context_length):
        super().__init__()
        self.key, self.query, self.value = (
            nn.Linear(n_embed, head_size, bias=False) for _ in range(3)
        )
        self.register_buffer("tril", torch.ones(context_length, context_length).tril())

    def forward(self, x):
        t, c = x.shape[1], x.shape[2]
        scores = self.query(x) @ self.key(x).transpose(-2, -1) / math.sqrt(c)  # the bug: C
        scores = scores.masked_fill(self.tril[:t, :t] == 0, float("-inf"))
        return scores.softmax(dim=-1) @ self.value(x)


class MultiHeadAttention(nn.Module):
    def __init__(self, n_head, n_embed, context_length):
        super().__init__()
        size = n_embed // n_head
        self.heads = nn.ModuleList(Head(size, n_embed, context_length) for _ in range(n_head))

    def forward(self, x):
        return torch.cat([head(x) for head in self.heads], dim=-1)


torch.manual_seed(0)
attn = MultiHeadAttention(4, 32, 64)
