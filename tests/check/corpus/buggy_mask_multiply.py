"""Buggy: the causal mask is multiplied into the scores, so the future scores become 0."""

import numpy as np


def attention(q, k, v, causal=False):
    scores = q @ k.T / np.sqrt(q.shape[-1])
    if causal:
        n = scores.shape[-1]
        scores = scores * np.tril(np.ones((n, n)))
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return weights / weights.sum(axis=-1, keepdims=True) @ v
