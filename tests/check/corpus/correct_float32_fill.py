"""Correct: computes in float32 and fills the future with -1e9, as many tutorials do."""

import math

import numpy as np


def attention(q, k, v, is_causal=False):
    q, k, v = (np.asarray(x, dtype=np.float32) for x in (q, k, v))
    scores = (q @ k.T) / np.float32(math.sqrt(q.shape[-1]))
    if is_causal:
        future = np.triu(np.ones(scores.shape, dtype=bool), k=1)
        scores = np.where(future, np.float32(-1e9), scores)
    scores -= scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    return (w / w.sum(axis=-1, keepdims=True)) @ v
