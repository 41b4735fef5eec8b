"""Correct (numpy): picoGPT's attention, written after it: a function of (q, k, v, mask) on 2-D
arrays, the mask required and added to the scaled scores (picoGPT's `mha` builds it as
(1 - tri(n)) * -1e10: 0 keeps, -1e10 hides), a softmax over the keys, then the values.

after: jaymody/picoGPT gpt2.py
commit: 018a1e1796d7ea3e96032d9667042316c8fa7864
licence: MIT
target: attention
expected: ok
"""

import numpy as np


def attention(q, k, v, mask):
    scores = q @ k.T / np.sqrt(q.shape[-1]) + mask
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True) @ v
