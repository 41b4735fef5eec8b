"""Correct (torch): the MultiHeadAttention of sooftware's `attentions` collection: called as
layer(query, key, value, mask=None), maps `query_proj`, `key_proj`, `value_proj` and no map
out, heads moved to the front and folded into the batch axis as (heads * batch, n, d_head),
scaled by sqrt(d_head) through its ScaledDotProductAttention(d_head) (bmm, masked_fill_ with
-inf where the mask is True, softmax over the last axis); returns (context, attn).

repository: sooftware/attentions
path: attentions.py
commit: b1dd65be8f12fbe19525bc4ae0dbbc14975778a7
licence: MIT
target: attn
expected: ok
"""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor


class ScaledDotProductAttention(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.sqrt_dim = np.sqrt(dim)

    def forward(
        self, query: Tensor, key: Tensor, value: Tensor, mask: Tensor | None = None
    ) -> tuple[Tensor, Tensor]:
        score = torch.bmm(query, key.transpose(1, 2)) / self.sqrt_dim

        if mask is not None:
            score.masked_fill_(mask.view(score.size()), -float("Inf"))

        attn = F.softmax(score, -1)
        context = torch.bmm(attn, value)
        return context, attn


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model: int = 512, num_heads: int = 8):
        super().__init__()
        assert d_model % num_heads == 0, "d_model % num_heads should be zero."
        self.d_head = int(d_model / num_heads)
        self.num_heads = num_heads
        self.scaled_dot_attn = ScaledDotProductAttention(self.d_head)
        self.query_proj = nn.Linear(d_model, self.d_head * num_heads)
        self.key_proj = nn.Linear(d_model, self.d_head * num_heads)
        self.value_proj = nn.Linear(d_model, self.d_head * num_heads)

    def forward(
        self, query: Tensor, key: Tensor, value: Tensor, mask: Tensor | None = None
    ) -> tuple[Tensor, Tensor]:
        batch_size, d = value.size(0), self.d_head

        query = self.query_proj(query).view(batch_size, -1, self.num_heads, self.d_head)
        key = self.key_proj(key).view(batch_size, -1, self.num_heads, self.d_head)
        value = self.value_proj(value).view(batch_size, -1, self.num_heads, self.d_head)

        query = query.permute(2, 0, 1, 3).contiguous().view(batch_size * self.num_heads, -1, d)
        key = key.permute(2, 0, 1, 3).contiguous().view(batch_size * self.num_heads, -1, d)
        value = value.permute(2, 0, 1, 3).contiguous().view(batch_size * self.num_heads, -1, d)

        if mask is not None:
            mask = mask.unsqueeze(1).repeat(1, self.num_heads, 1, 1)

        context, attn = self.scaled_dot_attn(query, key, value, mask)

        context = context.view(self.num_heads, batch_size, -1, self.d_head)
        context = context.permute(1, 2, 0, 3).contiguous().view(batch_size, -1, self.num_heads * d)

        return context, attn


torch.manual_seed(0)
attn = MultiHeadAttention(32, 4)
