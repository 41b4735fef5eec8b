"""Hostile: returns NaN everywhere."""

import numpy as np


def attention(q, k, v):
    return np.full(v.shape, np.nan)
