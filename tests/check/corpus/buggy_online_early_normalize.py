"""Buggy: dividing by the running sum inside the loop instead of once at the end.

The sum at block j has seen only blocks 0..j, so the earlier blocks are divided by too small
a total, and the weights add up to more than one.
"""

import numpy as np

BLOCK = 4


def attention(q, k, v):
    n, d = q.shape
    o = np.zeros((n, v.shape[1]))
    m = np.full(n, -np.inf)
    l = np.zeros(n)  # noqa: E741 - the paper's name for the running sum
    for j in range(0, k.shape[0], BLOCK):
        s = q @ k[j : j + BLOCK].T / np.sqrt(d)
        m_new = np.maximum(m, s.max(axis=1))
        p = np.exp(s - m_new[:, None])
        c = np.exp(m - m_new)
        l = l * c + p.sum(axis=1)  # noqa: E741
        o = o * c[:, None] + (p @ v[j : j + BLOCK]) / l[:, None]  # should divide once, after
        m = m_new
    return o
