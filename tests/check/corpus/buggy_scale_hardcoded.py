"""Buggy: divides by 8, which is sqrt(d) only for d = 64."""

from scipy.special import softmax


def attention(q, k, v):
    return softmax(q @ k.T / 8.0, axis=-1) @ v
