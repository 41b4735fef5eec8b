"""Buggy (torch): the MultiHeadAttention of jadore801120's attention-is-all-you-need-pytorch as
it shipped between its PyTorch 0.4 port (23 August 2018) and e108f0f ("temperature definition
fix", 26 August 2018), written after it: the temperature is sqrt(d_model), the width, not
sqrt(d_k). Its conventions: forward(q, k, v, mask) on (batch, n, C), maps `w_qs`, `w_ks`,
`w_vs` and `fc`; heads folded into the batch, (heads * batch, n, d_k), bmm products, the mask
repeated per head with `mask.repeat` (so it must be given: its encoder always passes a padding
mask, as `attn` here does, none masked) and filled with -inf where True; the output through
`fc`, x added back and `layer_norm` applied after: the 2017 Transformer's post-norm.

after: jadore801120/attention-is-all-you-need-pytorch transformer/SubLayers.py
after: jadore801120/attention-is-all-you-need-pytorch transformer/Modules.py
commit: 32bcc1026536114f887d703ae974d4ae5bfdb970
licence: MIT
target: attn
expected: buggy scale-wrong
"""

import numpy as np
import torch
from torch import nn


class ScaledDotProductAttention(nn.Module):
    def __init__(self, temperature, attn_dropout=0.1):
        super().__init__()
        self.temperature = temperature
        self.dropout = nn.Dropout(attn_dropout)

    def forward(self, q, k, v, mask=None):
        scores = torch.bmm(q, k.transpose(1, 2)) / self.temperature
        if mask is not None:
            scores = scores.masked_fill(mask, -np.inf)
        weights = self.dropout(torch.softmax(scores, dim=2))
        return torch.bmm(weights, v), weights


class MultiHeadAttention(nn.Module):
    def __init__(self, n_head, d_model, d_k, d_v, dropout=0.1):
        super().__init__()
        self.n_head, self.d_k, self.d_v = n_head, d_k, d_v
        self.w_qs = nn.Linear(d_model, n_head * d_k)
        self.w_ks = nn.Linear(d_model, n_head * d_k)
        self.w_vs = nn.Linear(d_model, n_head * d_v)
        self.attention = ScaledDotProductAttention(np.power(d_model, 0.5))  # the shipped bug
        self.layer_norm = nn.LayerNorm(d_model)
        self.fc = nn.Linear(n_head * d_v, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, q, k, v, mask=None):
        h, b, n = self.n_head, q.shape[0], q.shape[1]
        residual = q

        def heads(t, size):
            return t.view(b, -1, h, size).permute(2, 0, 1, 3).reshape(h * b, -1, size)

        q, k, v = (
            heads(self.w_qs(q), self.d_k),
            heads(self.w_ks(k), self.d_k),
            heads(self.w_vs(v), self.d_v),
        )
        out, weights = self.attention(q, k, v, mask=mask.repeat(h, 1, 1))
        out = out.view(h, b, n, self.d_v).permute(1, 2, 0, 3).reshape(b, n, -1)
        return self.layer_norm(self.dropout(self.fc(out)) + residual), weights


torch.manual_seed(0)
attn = MultiHeadAttention(n_head=4, d_model=32, d_k=8, d_v=8)
called = attn.forward  # as its encoder calls it: always with a padding mask, here none masked
attn.forward = lambda q, k, v, mask=None: called(
    q,
    k,
    v,
    torch.zeros(q.shape[0], q.shape[1], k.shape[1], dtype=torch.bool) if mask is None else mask,
)
