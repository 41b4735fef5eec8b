"""Correct (torch): an nn.Module whose forward takes batched (b, h, n, d) q, k, v and a mask
(mask == 0 is filled with -1e9), with dropout on the weights and the weights returned too."""

import torch
import torch.nn.functional as F
from torch import nn


class ScaledDotProductAttention(nn.Module):
    def __init__(self, attn_dropout: float = 0.1):
        super().__init__()
        self.dropout = nn.Dropout(attn_dropout)

    def forward(self, q, k, v, mask=None):
        attn = torch.matmul(q / q.size(-1) ** 0.5, k.transpose(2, 3))
        if mask is not None:
            attn = attn.masked_fill(mask == 0, -1e9)
        attn = self.dropout(F.softmax(attn, dim=-1))
        return torch.matmul(attn, v), attn


sdpa = ScaledDotProductAttention()
