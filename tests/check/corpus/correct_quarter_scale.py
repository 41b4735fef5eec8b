"""Correct: scales q and k by d**-0.25 each, scipy softmax, boolean keep mask `attn_mask`."""

import numpy as np
from scipy.special import softmax


def attention(q, k, v, attn_mask=None):
    d = q.shape[-1]
    scores = (q * d**-0.25) @ (k * d**-0.25).T
    if attn_mask is not None:
        scores = np.where(attn_mask, scores, -np.inf)
    return softmax(scores, axis=-1) @ v
