"""Buggy: softmax without subtracting the max: overflows to NaN on large scores."""

import numpy as np


def attention(q, k, v, causal=False):
    scores = q @ k.T / np.sqrt(q.shape[-1])
    if causal:
        scores = np.where(np.tril(np.ones(scores.shape, dtype=bool)), scores, -np.inf)
    e = np.exp(scores)
    return e / e.sum(axis=-1, keepdims=True) @ v
