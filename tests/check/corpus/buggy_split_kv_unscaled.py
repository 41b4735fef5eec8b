"""Buggy: split-KV ("flash decoding") whose combine step forgets each split's own max.

Every split computes a normalised partial output and the sum of its exponentials, each taken
against the split's own max; the combine weighs the partials by those sums without first
bringing them to the global max, so a split whose max is low counts as much as the top one.
"""

from itertools import pairwise

import numpy as np

NUM_SPLITS = 3


def _partial(q, k, v, scale):
    s = q @ k.T * scale
    m = s.max(axis=-1, keepdims=True)
    p = np.exp(s - m)
    total = p.sum(axis=-1, keepdims=True)
    return p @ v / total, total, m


def attention(q, k, v):
    scale = q.shape[-1] ** -0.5
    bounds = np.linspace(0, k.shape[0], NUM_SPLITS + 1).astype(int)
    outs, sums = [], []
    for lo, hi in pairwise(bounds):
        if hi == lo:
            continue
        o, total, _ = _partial(q, k[lo:hi], v[lo:hi], scale)
        outs.append(o)
        sums.append(total)  # should be total * exp(m - global max)
    return sum(t * o for t, o in zip(sums, outs, strict=True)) / sum(sums)
