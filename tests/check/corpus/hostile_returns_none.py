"""Hostile: forgets to return."""

import numpy as np


def attention(q, k, v):
    np.exp(q @ k.T) @ v
