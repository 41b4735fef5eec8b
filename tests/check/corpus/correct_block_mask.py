"""Correct: a required boolean *block* mask (True = masked out), filled with finfo.min."""

import numpy as np


def attend(q, k, v, attn_mask):
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(k.shape[-1])
    scores = np.where(attn_mask, np.finfo(scores.dtype).min, scores)
    scores = scores - scores.max(-1, keepdims=True)
    e = np.exp(scores)
    return e / e.sum(-1, keepdims=True) @ v
