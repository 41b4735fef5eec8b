"""Buggy: a "lazy rescale" that moves the max on every block but rescales only on big jumps.

Skipping the rescale is sound only if the stale max is kept too (the exponentials are then
taken against it, and nothing was summed against any other). This one updates the max always
and rescales only when it jumped by more than a threshold, so small rises are never corrected.
"""

import math

import numpy as np

BLOCK = 8
THRESHOLD = 8.0  # in units of the scores, as a kernel working in exp2 would pick


def attention(q, k, v):
    n, d = q.shape
    out = np.zeros((n, v.shape[-1]), dtype=np.float32)
    row_max = np.full(n, -np.inf, dtype=np.float32)
    row_sum = np.zeros(n, dtype=np.float32)
    for j in range(0, k.shape[0], BLOCK):
        s = (q @ k[j : j + BLOCK].T / math.sqrt(d)).astype(np.float32)
        new_max = np.maximum(row_max, s.max(axis=-1))
        jump = new_max - row_max
        big = jump > THRESHOLD  # the first block jumps from -inf: always "big"
        alpha = np.where(big, np.exp(np.where(big, row_max - new_max, 0.0)), 1.0)
        row_max = new_max
        p = np.exp(s - row_max[:, None])
        row_sum = row_sum * alpha + p.sum(-1)
        out = out * alpha[:, None] + p @ v[j : j + BLOCK]
    return out / row_sum[:, None]
