"""Hostile: a correct kernel that refuses odd sequence lengths."""

import numpy as np


def attention(q, k, v):
    if len(q) % 2:
        raise ValueError("sequence length must be even")
    s = q @ k.T / np.sqrt(q.shape[-1])
    w = np.exp(s - s.max(-1, keepdims=True))
    return w / w.sum(-1, keepdims=True) @ v
