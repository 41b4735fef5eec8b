"""Buggy: sigmoid instead of softmax: each weight in (0, 1), rows do not sum to one."""

import numpy as np


def attention(q, k, v):
    return 1.0 / (1.0 + np.exp(-(q @ k.T) / np.sqrt(q.shape[-1]))) @ v
