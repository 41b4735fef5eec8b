"""Hostile: the file does not import."""

import numpy as np

SCALE = np.sqrt(undefined_width)  # noqa: F821


def attention(q, k, v):
    return v
