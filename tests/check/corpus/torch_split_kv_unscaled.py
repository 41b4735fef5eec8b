"""Buggy (torch): split-KV decoding whose merge weighs the partials by their sums of
exponentials, each taken against its own split's max, never brought to a common max."""

import torch

NUM_SPLITS = 2


def _split(q, k, v, scale):
    s = torch.matmul(q, k.transpose(-2, -1)) * scale
    m = s.amax(dim=-1, keepdim=True)
    p = torch.exp(s - m)
    l = p.sum(dim=-1, keepdim=True)  # noqa: E741 - the paper's name for the sum
    return torch.matmul(p, v) / l, l


def attention(q, k, v):
    scale = q.shape[-1] ** -0.5
    chunks = zip(k.chunk(NUM_SPLITS, dim=-2), v.chunk(NUM_SPLITS, dim=-2), strict=True)
    parts = [_split(q, kc, vc, scale) for kc, vc in chunks]
    total = sum(part_sum for _, part_sum in parts)  # should be sum(l * exp(m - global max))
    return sum(o * part_sum / total for o, part_sum in parts)
