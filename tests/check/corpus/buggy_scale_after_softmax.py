"""Buggy: the 1/sqrt(d) lands on the weights, after softmax."""

import numpy as np
from scipy.special import softmax


def attention(q, k, v):
    return softmax(q @ k.T, axis=-1) / np.sqrt(q.shape[-1]) @ v
