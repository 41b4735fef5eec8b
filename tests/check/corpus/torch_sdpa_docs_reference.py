"""Correct (torch): the reference in the documentation of F.scaled_dot_product_attention (the
code it calls equivalent to the fused kernel), written after it: an additive bias of zeros
with -inf above the diagonal when `is_causal`, a boolean `attn_mask` (True = may attend)
turned into -inf where False or a float one added, the scale 1/sqrt(d) unless `scale` is
given, and dropout applied with train=True always, at `dropout_p` = 0.0 by default.

after: pytorch/pytorch torch/nn/functional.py
commit: 0642de177e17dc9d0b7fea8d5e3119e15720c337
licence: BSD-3-Clause
target: scaled_dot_product_attention
expected: ok
"""

import math

import torch


def scaled_dot_product_attention(
    query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None
):
    n_q, n_k = query.size(-2), key.size(-2)
    bias = torch.zeros(n_q, n_k, dtype=query.dtype, device=query.device)
    if is_causal:
        assert attn_mask is None
        bias = bias.masked_fill(~torch.ones(n_q, n_k, dtype=torch.bool).tril(), float("-inf"))
    if attn_mask is not None and attn_mask.dtype == torch.bool:
        bias = bias.masked_fill(~attn_mask, float("-inf"))
    elif attn_mask is not None:
        bias = bias + attn_mask
    s = query @ key.transpose(-2, -1) * (1 / math.sqrt(query.size(-1)) if scale is None else scale)
    weights = torch.softmax(s + bias, dim=-1)
    return torch.dropout(weights, dropout_p, train=True) @ value
