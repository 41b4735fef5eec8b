"""Buggy: accepts a mask argument and drops it."""

import numpy as np
from scipy.special import softmax


def attention(q, k, v, mask=None):
    return softmax(q @ k.T / np.sqrt(q.shape[-1]), axis=-1) @ v
