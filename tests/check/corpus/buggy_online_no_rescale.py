"""Buggy: an online-softmax loop that forgets to rescale what it has summed when the max rises.

Each block's exponentials are taken against the new running max, but the accumulator and the
sum built against the old max are kept as they are. Exact whenever the first block holds the
row's maximum, wrong whenever a later block raises it.
"""

import numpy as np

BLOCK_N = 4


def flash_forward(q, k, v):
    n, d = q.shape
    scale = 1.0 / np.sqrt(d)
    o = np.zeros((n, v.shape[1]))
    m = np.full((n, 1), -np.inf)
    l = np.zeros((n, 1))  # noqa: E741 - the paper's name for the running sum
    for start in range(0, k.shape[0], BLOCK_N):
        kb, vb = k[start : start + BLOCK_N], v[start : start + BLOCK_N]
        s = q @ kb.T * scale
        m = np.maximum(m, s.max(axis=1, keepdims=True))
        p = np.exp(s - m)
        l = l + p.sum(axis=1, keepdims=True)  # noqa: E741 - missing: l * exp(m_old - m)
        o = o + p @ vb  # missing: o * exp(m_old - m)
    return o / l
