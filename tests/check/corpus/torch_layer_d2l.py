"""Correct (torch): Dive into Deep Learning's MultiHeadAttention (d2l.torch), condensed: called
as layer(queries, keys, values, valid_lens) with valid_lens required (None: every key valid),
LazyLinear maps `W_q`, `W_k`, `W_v`, `num_heads` heads moved into the batch axis
((batch * heads, n, d / heads), so the scores are 3-D and bmm multiplies them), the heads
joined by `W_o`. The masked softmax fills scores beyond a valid length with -1e6.

repository: d2l-ai/d2l-en
path: d2l/torch.py
commit: c3fb91b02a8ea24e15134326872983d773c494cf
licence: MIT-0 (the book's sample code)
target: attn
expected: ok
args: {"valid_lens": None}
"""

import math

import torch
from torch import nn


def masked_softmax(X, valid_lens):
    """Softmax over the last axis, with the elements past each valid length masked out."""
    if valid_lens is None:
        return nn.functional.softmax(X, dim=-1)
    shape = X.shape
    valid_lens = (
        torch.repeat_interleave(valid_lens, shape[1])
        if valid_lens.dim() == 1
        else valid_lens.reshape(-1)
    )
    X = X.reshape(-1, shape[-1])
    keep = torch.arange(shape[-1], device=X.device)[None, :] < valid_lens[:, None]
    X[~keep] = -1e6
    return nn.functional.softmax(X.reshape(shape), dim=-1)


class DotProductAttention(nn.Module):
    def __init__(self, dropout):
        super().__init__()
        self.dropout = nn.Dropout(dropout)

    def forward(self, queries, keys, values, valid_lens=None):
        d = queries.shape[-1]
        scores = torch.bmm(queries, keys.transpose(1, 2)) / math.sqrt(d)
        self.attention_weights = masked_softmax(scores, valid_lens)
        return torch.bmm(self.dropout(self.attention_weights), values)


class MultiHeadAttention(nn.Module):
    def __init__(self, num_hiddens, num_heads, dropout, bias=False):
        super().__init__()
        self.num_heads = num_heads
        self.attention = DotProductAttention(dropout)
        self.W_q = nn.LazyLinear(num_hiddens, bias=bias)
        self.W_k = nn.LazyLinear(num_hiddens, bias=bias)
        self.W_v = nn.LazyLinear(num_hiddens, bias=bias)
        self.W_o = nn.LazyLinear(num_hiddens, bias=bias)

    def forward(self, queries, keys, values, valid_lens):
        queries = self.transpose_qkv(self.W_q(queries))
        keys = self.transpose_qkv(self.W_k(keys))
        values = self.transpose_qkv(self.W_v(values))
        if valid_lens is not None:
            valid_lens = torch.repeat_interleave(valid_lens, repeats=self.num_heads, dim=0)
        output = self.attention(queries, keys, values, valid_lens)
        return self.W_o(self.transpose_output(output))

    def transpose_qkv(self, X):  # (b, n, hiddens) -> (b * heads, n, hiddens / heads)
        X = X.reshape(X.shape[0], X.shape[1], self.num_heads, -1).permute(0, 2, 1, 3)
        return X.reshape(-1, X.shape[2], X.shape[3])

    def transpose_output(self, X):  # the reverse of transpose_qkv
        X = X.reshape(-1, self.num_heads, X.shape[1], X.shape[2]).permute(0, 2, 1, 3)
        return X.reshape(X.shape[0], X.shape[1], -1)


attn = MultiHeadAttention(num_hiddens=16, num_heads=4, dropout=0.1)
attn(*[torch.zeros(1, 2, 16)] * 3, None)  # LazyLinear takes its width from a first call
