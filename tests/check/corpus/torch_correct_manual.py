"""Correct (torch): by hand, transpose(-2, -1), masked_fill with -inf, float32 inside."""

import math

import torch


def attention(q, k, v, causal=False):
    q, k, v = q.float(), k.float(), v.float()
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if causal:
        n = scores.size(-1)
        future = torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)
        scores = scores.masked_fill(future, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v
