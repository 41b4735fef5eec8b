"""Correct (torch): Dive into Deep Learning's MultiHeadAttention (d2l.torch), written after it:
called as layer(queries, keys, values, valid_lens) with valid_lens required (None: every key
valid), LazyLinear maps `W_q`, `W_k`, `W_v` and `W_o`, `num_heads` heads folded into the batch
axis ((batch * heads, n, d / heads): 3-D scores multiplied by bmm), keys past a valid length
set to -1e6 before the softmax, dropout on the weights.

after: d2l-ai/d2l-en d2l/torch.py
commit: c3fb91b02a8ea24e15134326872983d773c494cf
licence: MIT-0 (the book's sample code)
target: attn
expected: ok
args: {"valid_lens": None}
"""

import math

import torch
from torch import nn


class MultiHeadAttention(nn.Module):
    def __init__(self, num_hiddens, num_heads, dropout, bias=False):
        super().__init__()
        self.num_heads = num_heads
        self.dropout = nn.Dropout(dropout)
        self.W_q, self.W_k, self.W_v, self.W_o = (
            nn.LazyLinear(num_hiddens, bias=bias) for _ in range(4)
        )

    def forward(self, queries, keys, values, valid_lens):
        q, k, v = (
            self.fold(self.W_q(queries)),
            self.fold(self.W_k(keys)),
            self.fold(self.W_v(values)),
        )
        scores = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(q.shape[-1])
        if valid_lens is not None:  # (batch,) or (batch, n_queries): one length a row
            lens = valid_lens.repeat_interleave(self.num_heads, dim=0)
            lens = lens[:, None] if lens.dim() == 1 else lens
            scores = scores.masked_fill(torch.arange(scores.shape[-1]) >= lens[..., None], -1e6)
        out = torch.bmm(self.dropout(scores.softmax(dim=-1)), v)
        return self.W_o(self.unfold(out))

    def fold(self, x):  # (b, n, hiddens) -> (b * heads, n, hiddens / heads)
        b, n, _ = x.shape
        return x.view(b, n, self.num_heads, -1).transpose(1, 2).reshape(b * self.num_heads, n, -1)

    def unfold(self, x):  # (b * heads, n, d) -> (b, n, heads * d)
        bh, n, d = x.shape
        return (
            x.view(bh // self.num_heads, self.num_heads, n, d)
            .transpose(1, 2)
            .reshape(bh // self.num_heads, n, -1)
        )


attn = MultiHeadAttention(num_hiddens=16, num_heads=4, dropout=0.1)
attn(*[torch.zeros(1, 2, 16)] * 3, None)  # LazyLinear takes its width from a first call
