"""Buggy: a keep mask passed as `attn_mask` is multiplied into the scores."""

import numpy as np
from scipy.special import softmax


def attention(q, k, v, attn_mask=None):
    scores = q @ k.T / np.sqrt(q.shape[-1])
    if attn_mask is not None:
        scores = scores * attn_mask
    return softmax(scores, axis=-1) @ v
