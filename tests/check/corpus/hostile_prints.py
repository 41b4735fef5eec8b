"""Hostile but correct: prints to stdout on import and on every call."""

import numpy as np

print("loading the kernel... {not json")


def attention(q, k, v):
    print("called with", q.shape)
    s = q @ k.T / np.sqrt(q.shape[-1])
    w = np.exp(s - s.max(-1, keepdims=True))
    return w / w.sum(-1, keepdims=True) @ v
