"""Correct: a tiled online-softmax kernel (FlashAttention's loop) in float32, blocks of 4 keys."""

import numpy as np

BLOCK = 4


def flash_attention(q, k, v, causal=False):
    q, k, v = (np.asarray(x, dtype=np.float32) for x in (q, k, v))
    n, d = q.shape
    scale = np.float32(1.0 / np.sqrt(d))
    out = np.zeros((n, v.shape[1]), dtype=np.float32)
    running_max = np.full(n, -np.inf, dtype=np.float32)
    running_sum = np.zeros(n, dtype=np.float32)
    rows = np.arange(n)[:, None]
    for start in range(0, k.shape[0], BLOCK):
        cols = np.arange(start, min(start + BLOCK, k.shape[0]))
        s = (q @ k[cols].T) * scale
        if causal:
            s = np.where(cols[None, :] <= rows, s, -np.inf)
        new_max = np.maximum(running_max, s.max(axis=1))
        safe = np.where(np.isfinite(new_max), new_max, 0.0).astype(np.float32)
        p = np.exp(s - safe[:, None])
        correction = np.exp(running_max - safe)
        running_sum = running_sum * correction + p.sum(axis=1)
        out = out * correction[:, None] + p @ v[cols]
        running_max = new_max
    return out / running_sum[:, None]
