"""Buggy: multiplies by sqrt(d) instead of dividing (scale = d ** 0.5 applied with *)."""

import numpy as np
from scipy.special import softmax


def attention(q, k, v, causal=False):
    scale = q.shape[-1] ** 0.5
    scores = q @ k.T * scale
    if causal:
        scores = np.where(np.tril(np.ones(scores.shape, dtype=bool)), scores, -np.inf)
    return softmax(scores, axis=-1) @ v
