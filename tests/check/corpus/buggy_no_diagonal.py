"""Buggy: off by one, triu(k=0) blocks the diagonal; position 0 has nothing left (fill -1e9)."""

import numpy as np


def attention(q, k, v, causal=False):
    scores = q @ k.T / np.sqrt(q.shape[-1])
    if causal:
        scores = np.where(np.triu(np.ones(scores.shape, dtype=bool)), -1e9, scores)
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return w / w.sum(axis=-1, keepdims=True) @ v
