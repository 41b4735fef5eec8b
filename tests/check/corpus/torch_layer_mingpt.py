"""Correct (torch): minGPT's CausalSelfAttention as it was with separate maps, written after it:
`key`, `query` and `value` applied in that order, `n_head` heads, `proj` out, dropout on the
weights and on the output, and the causal mask a registered buffer named `mask`, ones on and
below the diagonal, the scores filled with -inf where it is 0. Its forward takes
(x, layer_past=None) (minGPT's is also wrapped in autocast, a no-op on a CPU).

after: karpathy/minGPT mingpt/model.py
commit: 08c08d8db0475a1cea334a25bf98dee51972180c
licence: MIT
target: attn
expected: ok
"""

import math

import torch
from torch import nn


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd=12, n_head=3, block_size=16, attn_pdrop=0.1, resid_pdrop=0.1):
        super().__init__()
        self.n_head = n_head
        self.key, self.query, self.value, self.proj = (nn.Linear(n_embd, n_embd) for _ in range(4))
        self.attn_drop, self.resid_drop = nn.Dropout(attn_pdrop), nn.Dropout(resid_pdrop)
        below = torch.ones(block_size, block_size).tril()
        self.register_buffer("mask", below.view(1, 1, block_size, block_size))

    def forward(self, x, layer_past=None):
        b, t, c = x.size()

        def heads(y):
            return y.view(b, t, self.n_head, -1).transpose(1, 2)

        k, q, v = heads(self.key(x)), heads(self.query(x)), heads(self.value(x))
        att = q @ k.transpose(-2, -1) / math.sqrt(k.size(-1))
        att = att.masked_fill(self.mask[:, :, :t, :t] == 0, float("-inf")).softmax(dim=-1)
        y = (self.attn_drop(att) @ v).transpose(1, 2).reshape(b, t, c)
        return self.resid_drop(self.proj(y))


attn = CausalSelfAttention()
