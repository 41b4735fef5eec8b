"""Correct model: no position embeddings, but a causal mask, which lets order through."""

import numpy as np

_rng = np.random.default_rng(1)
EMBED = _rng.standard_normal((10, 6))


def model(token_ids):
    x = EMBED[np.asarray(token_ids)]
    s = x @ x.T / np.sqrt(x.shape[1])
    s = np.where(np.tril(np.ones(s.shape, dtype=bool)), s, -np.inf)
    w = np.exp(s - s.max(-1, keepdims=True))
    return (w / w.sum(-1, keepdims=True)) @ x
