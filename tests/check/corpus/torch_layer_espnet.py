"""Correct without a mask (torch): ESPnet's MultiHeadedAttention as it was in 2019: called as
layer(query, key, value, mask) with the mask required (None: no mask), maps `linear_q`,
`linear_k`, `linear_v`, `h` heads of `d_k`, the heads joined by `linear_out`. The mask
argument is (batch, time1, time2), 1 = keep, turned in place into its opposite by
`mask.unsqueeze_(1).eq_(0)`, which changes the caller's mask (later written without the
underscores).

repository: espnet/espnet
path: espnet/nets/pytorch_backend/transformer/attention.py
commit: 0213427187b25b80800949b7d0ae8f6184f0fe2c
licence: Apache-2.0
target: attn
expected: ok
"""

import math

import numpy
import torch
from torch import nn

MIN_VALUE = float(numpy.finfo(numpy.float32).min)


class MultiHeadedAttention(nn.Module):
    def __init__(self, n_head, n_feat, dropout_rate):
        super().__init__()
        assert n_feat % n_head == 0
        self.d_k = n_feat // n_head  # d_v always equals d_k
        self.h = n_head
        self.linear_q = nn.Linear(n_feat, n_feat)
        self.linear_k = nn.Linear(n_feat, n_feat)
        self.linear_v = nn.Linear(n_feat, n_feat)
        self.linear_out = nn.Linear(n_feat, n_feat)
        self.attn = None
        self.dropout = nn.Dropout(p=dropout_rate)

    def forward(self, query, key, value, mask):
        n_batch = query.size(0)
        q = self.linear_q(query).view(n_batch, -1, self.h, self.d_k).transpose(1, 2)
        k = self.linear_k(key).view(n_batch, -1, self.h, self.d_k).transpose(1, 2)
        v = self.linear_v(value).view(n_batch, -1, self.h, self.d_k).transpose(1, 2)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.d_k)
        if mask is not None:
            mask.unsqueeze_(1).eq_(0)  # (batch, 1, time1, time2)
            scores = scores.masked_fill(mask, MIN_VALUE)
            self.attn = torch.softmax(scores, dim=-1).masked_fill(mask, 0.0)
        else:
            self.attn = torch.softmax(scores, dim=-1)
        x = torch.matmul(self.dropout(self.attn), v)  # (batch, head, time1, d_k)
        x = x.transpose(1, 2).contiguous().view(n_batch, -1, self.h * self.d_k)
        return self.linear_out(x)


attn = MultiHeadedAttention(n_head=4, n_feat=16, dropout_rate=0.1)
