"""Correct (Triton): `triton_unmasked_tail.py` with its boundary masks: each load and store of
rows takes `mask=offs < n`, and the scores of keys past n are -inf before the softmax, so any
length runs and nothing outside q, k, v or the output is touched.
"""

import torch
import triton
import triton.language as tl

BLOCK = 128  # the tutorial's BLOCK_M


@triton.jit
def _attn_fwd(Q, K, V, Out, sm_scale, N_CTX, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr):
    start_m = tl.program_id(0)
    base = tl.program_id(1) * N_CTX * HEAD_DIM
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    rows = offs_m < N_CTX
    q = tl.load(Q + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], mask=rows[:, None])
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    for start_n in range(0, N_CTX, BLOCK_M):
        cols = start_n + tl.arange(0, BLOCK_M)
        keys = cols < N_CTX
        kv = base + cols[:, None] * HEAD_DIM + offs_d[None, :]
        k = tl.load(K + kv, mask=keys[:, None], other=0.0)
        qk = tl.dot(q, tl.trans(k)) * qk_scale
        qk = tl.where(keys[None, :], qk, -float("inf"))
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        v = tl.load(V + kv, mask=keys[:, None], other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p, v)
        l_i = l_i * alpha + tl.sum(p, 1)
        m_i = m_ij
    out = Out + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :]
    tl.store(out, acc / l_i[:, None], mask=rows[:, None])


def attention(q, k, v):
    """q, k, v: (batch, heads, n, d) float32, d a power of two, at least 16."""
    q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
    out = torch.empty_like(q)
    n, d = q.shape[2], q.shape[3]
    grid = (triton.cdiv(n, BLOCK), q.shape[0] * q.shape[1])
    _attn_fwd[grid](q, k, v, out, d**-0.5, n, HEAD_DIM=d, BLOCK_M=BLOCK)
    return out
