"""Correct: the online softmax one key at a time (tiles of 1) for all queries, in float32."""

import numpy as np


def attention(q, k, v, is_causal=False):
    q, k, v = (np.asarray(x, dtype=np.float32) for x in (q, k, v))
    n, d = q.shape
    scale = np.float32(d**-0.5)
    out = np.zeros((n, v.shape[1]), dtype=np.float32)
    m = np.full(n, -np.inf, dtype=np.float32)
    total = np.zeros(n, dtype=np.float32)
    rows = np.arange(n)
    for j in range(k.shape[0]):
        s = (q @ k[j]) * scale
        if is_causal:
            s = np.where(rows >= j, s, -np.inf)
        m_new = np.maximum(m, s)
        safe = np.where(np.isfinite(m_new), m_new, 0.0)
        fix = np.exp(m - safe)
        e = np.exp(s - safe)
        total = total * fix + e
        out = out * fix[:, None] + e[:, None] * v[j]
        m = m_new
    return out / total[:, None]
