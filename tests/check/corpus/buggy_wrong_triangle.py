"""Buggy: np.triu where np.tril was meant: each position sees itself and the future."""

import numpy as np


def attention(q, k, v, causal=False):
    scores = q @ k.T / np.sqrt(q.shape[-1])
    if causal:
        keep = np.triu(np.ones(scores.shape, dtype=bool))
        scores = np.where(keep, scores, -np.inf)
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return w / w.sum(axis=-1, keepdims=True) @ v
