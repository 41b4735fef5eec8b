"""Correct (torch): OpenNMT-py's MultiHeadedAttention, written after it: called as
layer(key, value, query, mask=None), maps `linear_keys`, `linear_values`, `linear_query`
applied in that order, `head_count` heads, `final_linear` joining them; q divided by
sqrt(d) before the product, a mask True where blocked (filled with -1e18), the softmax an
nn.Softmax module run in float32, dropout after it; returns (output, the first head's
weights). Which map makes q, k and v is read from where each one's output goes.

after: OpenNMT/OpenNMT-py onmt/modules/multi_headed_attn.py
commit: 0155d95740aad99f7d346df8ab7cd4768d10d6e6
licence: MIT
target: attn
expected: ok
"""

import math

from torch import nn


class MultiHeadedAttention(nn.Module):
    def __init__(self, head_count, model_dim, dropout=0.1):
        super().__init__()
        self.head_count, self.dim_per_head = head_count, model_dim // head_count
        self.linear_keys, self.linear_values, self.linear_query = (
            nn.Linear(model_dim, model_dim) for _ in range(3)
        )
        self.softmax = nn.Softmax(dim=-1)
        self.dropout = nn.Dropout(dropout)
        self.final_linear = nn.Linear(model_dim, model_dim)

    def forward(self, key, value, query, mask=None):
        b = key.size(0)

        def heads(y):
            return y.view(b, -1, self.head_count, self.dim_per_head).transpose(1, 2)

        key, value, query = (
            heads(self.linear_keys(key)),
            heads(self.linear_values(value)),
            heads(self.linear_query(query)),
        )
        scores = (query / math.sqrt(self.dim_per_head) @ key.transpose(2, 3)).float()
        if mask is not None:
            scores = scores.masked_fill(mask.unsqueeze(1), -1e18)  # mask (b, 1, n_keys)
        attn = self.softmax(scores).to(query.dtype)
        context = (
            (self.dropout(attn) @ value)
            .transpose(1, 2)
            .reshape(b, -1, self.head_count * self.dim_per_head)
        )
        return self.final_linear(context), attn[:, 0]


attn = MultiHeadedAttention(head_count=4, model_dim=16)
