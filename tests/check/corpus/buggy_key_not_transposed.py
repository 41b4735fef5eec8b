"""Buggy: q @ k without the transpose; it only runs when n == d."""

import numpy as np
from scipy.special import softmax


def attention(q, k, v):
    return softmax(q @ k / np.sqrt(q.shape[-1]), axis=-1) @ v
