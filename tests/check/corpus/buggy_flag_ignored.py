"""Buggy: takes `is_causal` and never uses it."""

import numpy as np


def attention(q, k, v, is_causal=False):
    scores = q @ k.T / np.sqrt(q.shape[-1])
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return w / w.sum(axis=-1, keepdims=True) @ v
