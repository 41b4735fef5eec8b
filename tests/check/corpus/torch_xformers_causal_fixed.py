"""Correct (torch): torch_xformers_causal_without_mask.py with the causal mask made when none is
given, as facebookresearch/xformers#103 was fixed.

after: facebookresearch/xformers xformers/components/attention/scaled_dot_product.py
commit: f149473cef224422aae367451760283e70fe0734
licence: BSD-3-Clause
target: attn
expected: ok
"""

import math

import torch
from torch import nn


def scaled_query_key_softmax(q, k, att_mask):
    q = q / math.sqrt(k.size(-1))
    att = q @ k.transpose(-2, -1)
    if att_mask is not None:
        att = att + att_mask
    return torch.softmax(att, dim=att.ndim - 1)


class ScaledDotProduct(nn.Module):
    def __init__(self, dropout=0.0, causal=False, seq_len=None):
        super().__init__()
        self.attn_drop = nn.Dropout(dropout, inplace=False)
        self.causal = causal
        self.seq_len = seq_len
        self.mask = None

    def forward(self, q, k, v, att_mask=None):
        if self.causal:
            n = q.shape[-2]
            future = torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)
            causal = torch.zeros(n, n, dtype=q.dtype).masked_fill(future, float("-inf"))
            att_mask = causal if att_mask is None else att_mask + causal
        att = self.attn_drop(scaled_query_key_softmax(q, k, att_mask))
        return att @ v


attn = ScaledDotProduct(causal=True)
