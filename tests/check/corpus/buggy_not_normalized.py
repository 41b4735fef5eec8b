"""Buggy: exp of the scores, never divided by their sum."""

import numpy as np


def attention(q, k, v):
    return np.exp(q @ k.T / np.sqrt(q.shape[-1])) @ v
