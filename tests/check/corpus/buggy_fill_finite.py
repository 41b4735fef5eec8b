"""Buggy: the future is filled with -4.0, which still leaks a few percent of weight."""

import numpy as np


def attention(q, k, v, is_causal=False):
    scores = q @ k.T / np.sqrt(q.shape[-1])
    if is_causal:
        scores = np.where(np.tril(np.ones(scores.shape)) == 1, scores, -4.0)
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return w / w.sum(axis=-1, keepdims=True) @ v
