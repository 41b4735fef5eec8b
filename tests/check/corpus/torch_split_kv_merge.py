"""Correct (torch): split-KV decoding in (batch, heads, n, d), partials merged by log-sum-exp.

Each split returns its normalised output and its log-sum-exp, as split-KV kernels do; the
merge weighs split i by exp(lse_i - lse), with lse over all splits.
"""

import torch

NUM_SPLITS = 2


def _split(q, k, v, scale):
    s = torch.matmul(q, k.transpose(-2, -1)) * scale
    lse = torch.logsumexp(s, dim=-1, keepdim=True)
    return torch.matmul(torch.exp(s - lse), v), lse


def attention(q, k, v):
    scale = q.shape[-1] ** -0.5
    chunks = zip(k.chunk(NUM_SPLITS, dim=-2), v.chunk(NUM_SPLITS, dim=-2), strict=True)
    parts = [_split(q, kc, vc, scale) for kc, vc in chunks]
    lse = torch.logsumexp(torch.cat([p[1] for p in parts], dim=-1), dim=-1, keepdim=True)
    return sum(o * torch.exp(part_lse - lse) for o, part_lse in parts)
