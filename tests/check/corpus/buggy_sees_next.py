"""Buggy: off by one, triu(k=2) instead of k=1: position i also sees i + 1."""

import numpy as np


def attention(q, k, v, causal=False):
    scores = q @ k.T / np.sqrt(q.shape[-1])
    if causal:
        scores = np.where(np.triu(np.ones(scores.shape, dtype=bool), k=2), -np.inf, scores)
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return w / w.sum(axis=-1, keepdims=True) @ v
