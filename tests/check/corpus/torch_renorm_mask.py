"""Buggy (torch): the causal mask is applied after softmax and the rows renormalised, which is
exact on ordinary scores but 0/0 when every kept weight underflows."""

import math

import torch


def attention(q, k, v, causal=False):
    weights = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.size(-1)), dim=-1)
    if causal:
        n = weights.size(-1)
        weights = weights * torch.tril(torch.ones(n, n, dtype=weights.dtype))
        weights = weights / weights.sum(dim=-1, keepdim=True)
    return weights @ v
