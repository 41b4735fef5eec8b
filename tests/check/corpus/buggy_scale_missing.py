"""Buggy: the scores are never divided by sqrt(d)."""

import numpy as np


def attention(q, k, v):
    scores = q @ k.T
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return weights / weights.sum(axis=-1, keepdims=True) @ v
