"""Buggy: the unrescaled online softmax with 64-key tiles.

On any sequence of 64 keys or fewer it is one tile, and exactly right; the bug appears only
on longer sequences, where a later tile raises the running maximum.
"""

import numpy as np

TILE = 64


def attention(q, k, v):
    d = q.shape[-1]
    acc = np.zeros((q.shape[0], v.shape[-1]))
    run_max = np.full(q.shape[0], -np.inf)
    run_sum = np.zeros(q.shape[0])
    for t in range(0, k.shape[0], TILE):
        s = q @ k[t : t + TILE].T / np.sqrt(d)
        run_max = np.maximum(run_max, s.max(-1))
        e = np.exp(s - run_max[:, None])
        run_sum += e.sum(-1)
        acc += e @ v[t : t + TILE]
    return acc / run_sum[:, None]
