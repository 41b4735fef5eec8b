"""Correct: einsum and logsumexp, with an additive float mask (0 keep, -inf block)."""

import numpy as np
from scipy.special import logsumexp


def sdpa(query, key, value, mask=None):
    scores = np.einsum("id,jd->ij", query, key) / np.sqrt(query.shape[-1])
    if mask is not None:
        scores = scores + mask
    weights = np.exp(scores - logsumexp(scores, axis=-1, keepdims=True))
    return np.einsum("ij,jd->id", weights, value)
