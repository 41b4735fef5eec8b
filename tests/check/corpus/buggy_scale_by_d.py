"""Buggy: divides the scores by d instead of sqrt(d)."""

from scipy.special import softmax


def attention(q, k, v):
    return softmax(q @ k.T / q.shape[-1], axis=-1) @ v
