"""Correct (torch): OpenNMT-py's MultiHeadedAttention, condensed: called as
layer(key, value, query, mask=None), maps `linear_keys`, `linear_values`, `linear_query`
applied in that order, `head_count` heads, the heads joined by `final_linear`; q scaled
before the product, a mask True where blocked (filled with -1e18), softmax in float32 as an
nn.Softmax module, dropout after it. Which map makes q, k and v is read from where each one's
output goes: into the product before the softmax (q first, then k) or after it (v).

repository: OpenNMT/OpenNMT-py
path: onmt/modules/multi_headed_attn.py
commit: 0155d95740aad99f7d346df8ab7cd4768d10d6e6
licence: MIT
target: attn
expected: ok
"""

import math

import torch
import torch.nn as nn


class MultiHeadedAttention(nn.Module):
    def __init__(self, head_count, model_dim, dropout=0.1):
        assert model_dim % head_count == 0
        self.dim_per_head = model_dim // head_count
        self.model_dim = model_dim
        super().__init__()
        self.head_count = head_count
        self.linear_keys = nn.Linear(model_dim, head_count * self.dim_per_head)
        self.linear_values = nn.Linear(model_dim, head_count * self.dim_per_head)
        self.linear_query = nn.Linear(model_dim, head_count * self.dim_per_head)
        self.softmax = nn.Softmax(dim=-1)
        self.dropout = nn.Dropout(dropout)
        self.final_linear = nn.Linear(model_dim, model_dim)

    def forward(self, key, value, query, mask=None):
        batch_size = key.size(0)
        dim_per_head, head_count = self.dim_per_head, self.head_count

        def shape(x):  # projection
            return x.view(batch_size, -1, head_count, dim_per_head).transpose(1, 2)

        def unshape(x):  # compute context
            return x.transpose(1, 2).contiguous().view(batch_size, -1, head_count * dim_per_head)

        key = self.linear_keys(key)
        value = self.linear_values(value)
        query = self.linear_query(query)
        key, value, query = shape(key), shape(value), shape(query)
        query = query / math.sqrt(dim_per_head)
        scores = torch.matmul(query, key.transpose(2, 3)).float()
        if mask is not None:
            mask = mask.unsqueeze(1)  # [B, 1, 1, T_values]
            scores = scores.masked_fill(mask, -1e18)
        attn = self.softmax(scores).to(query.dtype)
        context = unshape(torch.matmul(self.dropout(attn), value))
        return self.final_linear(context), attn[:, 0]


attn = MultiHeadedAttention(head_count=4, model_dim=16)
