"""Correct: numpy attention with a causal flag and a query-row mask, `q_mask` (True = a real
query, False = padding, whose output row is zeroed), that takes effect only when `use_mask` is
True. Passed alone, `q_mask` changes nothing: it is no way to make the kernel causal, and its
having no effect is no bug (it was reported as causal-flag-ignored)."""

import numpy as np


def attention(q, k, v, causal=False, q_mask=None, use_mask=False):
    scores = q @ k.T / np.sqrt(q.shape[-1])
    if causal:
        n = scores.shape[-1]
        scores = np.where(np.tril(np.ones((n, n), dtype=bool)), scores, -np.inf)
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=-1, keepdims=True)
    out = weights @ v
    if use_mask and q_mask is not None:
        out = np.where(np.asarray(q_mask, dtype=bool)[..., :, None], out, 0.0)
    return out
