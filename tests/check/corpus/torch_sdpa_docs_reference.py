"""Correct (torch): the reference implementation in the documentation of
F.scaled_dot_product_attention ("Efficient implementation equivalent to the following"): a
bias of zeros with -inf above the diagonal when is_causal, a boolean attn_mask True = may
attend or a float one added, the scale 1/sqrt(d) unless given, and dropout always applied
with `train=True`, at dropout_p = 0.0 by default.

repository: pytorch/pytorch
path: torch/nn/functional.py
commit: 0642de177e17dc9d0b7fea8d5e3119e15720c337
licence: BSD-3-Clause
target: scaled_dot_product_attention
expected: ok
"""

import math

import torch


def scaled_dot_product_attention(
    query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None
) -> torch.Tensor:
    L, S = query.size(-2), key.size(-2)
    scale_factor = 1 / math.sqrt(query.size(-1)) if scale is None else scale
    attn_bias = torch.zeros(L, S, dtype=query.dtype, device=query.device)
    if is_causal:
        assert attn_mask is None
        temp_mask = torch.ones(L, S, dtype=torch.bool).tril(diagonal=0)
        attn_bias.masked_fill_(temp_mask.logical_not(), float("-inf"))
        attn_bias.to(query.dtype)
    if attn_mask is not None:
        if attn_mask.dtype == torch.bool:
            attn_bias.masked_fill_(attn_mask.logical_not(), float("-inf"))
        else:
            attn_bias = attn_mask + attn_bias
    attn_weight = query @ key.transpose(-2, -1) * scale_factor
    attn_weight += attn_bias
    attn_weight = torch.softmax(attn_weight, dim=-1)
    attn_weight = torch.dropout(attn_weight, dropout_p, train=True)
    return attn_weight @ value
