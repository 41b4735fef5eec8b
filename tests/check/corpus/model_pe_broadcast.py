"""Buggy model: adds pe[:1] (position 0) to every token; broadcasting hides the bug."""

import numpy as np

_rng = np.random.default_rng(3)
EMBED = _rng.standard_normal((12, 8))
PE = _rng.standard_normal((64, 8))


def encode(ids):
    x = EMBED[ids] + PE[:1]
    s = x @ x.T / np.sqrt(8)
    w = np.exp(s - s.max(-1, keepdims=True))
    return (w / w.sum(-1, keepdims=True)) @ x
