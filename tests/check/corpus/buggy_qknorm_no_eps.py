"""Buggy: QK-norm without an epsilon: an all-zero query gives 0 / 0 = NaN."""

import numpy as np
from scipy.special import softmax


def attention(q, k, v):
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    k = k / np.linalg.norm(k, axis=-1, keepdims=True)
    return softmax(8.0 * q @ k.T, axis=-1) @ v
