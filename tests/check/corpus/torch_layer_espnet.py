"""Correct without a mask (torch): ESPnet's MultiHeadedAttention as it was in 2019, written after
it: called as layer(query, key, value, mask) with the mask required (None: no mask), maps
`linear_q`, `linear_k`, `linear_v`, `h` heads of `d_k`, `linear_out` joining them, the weights
kept in `self.attn`. The mask is (batch, time1, time2), 1 = keep; the layer turns it into its
opposite in place (`unsqueeze_(1).eq_(0)`), changing the caller's tensor (a shipped bug, later
written without the underscores), fills the blocked scores with float32's lowest value and
zeroes the blocked weights after the softmax.

after: espnet/espnet espnet/nets/pytorch_backend/transformer/attention.py
commit: 0213427187b25b80800949b7d0ae8f6184f0fe2c
licence: Apache-2.0
target: attn
expected: ok
"""

import math

import torch
from torch import nn

LOWEST = float(torch.finfo(torch.float32).min)


class MultiHeadedAttention(nn.Module):
    def __init__(self, n_head, n_feat, dropout_rate):
        super().__init__()
        self.h, self.d_k = n_head, n_feat // n_head
        self.linear_q, self.linear_k, self.linear_v, self.linear_out = (
            nn.Linear(n_feat, n_feat) for _ in range(4)
        )
        self.dropout = nn.Dropout(dropout_rate)
        self.attn = None

    def forward(self, query, key, value, mask):
        b = query.size(0)
        q, k, v = (
            lin(t).view(b, -1, self.h, self.d_k).transpose(1, 2)
            for lin, t in ((self.linear_q, query), (self.linear_k, key), (self.linear_v, value))
        )
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_k)
        if mask is None:
            self.attn = scores.softmax(dim=-1)
        else:
            blocked = mask.unsqueeze_(1).eq_(0)  # in place: the caller's mask is changed
            self.attn = (
                scores.masked_fill(blocked, LOWEST).softmax(dim=-1).masked_fill(blocked, 0.0)
            )
        out = (self.dropout(self.attn) @ v).transpose(1, 2).reshape(b, -1, self.h * self.d_k)
        return self.linear_out(out)


attn = MultiHeadedAttention(n_head=4, n_feat=16, dropout_rate=0.1)
