"""Buggy (Triton): the forward kernel of `triton_unmasked_tail.py` with the wide blocks of a
kernel tuned for long sequences, BLOCK_M = BLOCK_N = 256, and no boundary mask on any load or
store. At a multiple of 256 it is right; at any other length its last block reads past the end
of q, k and v and writes past the end of the output. Every length the checker tried (at most
128) was such a length, so it gave up (exit 2); the block is read from the launch's constexprs
and the kernel checked at n = 256, the smallest length it accepts.
"""

import torch
import triton
import triton.language as tl

BLOCK_M = 256
BLOCK_N = 256


@triton.jit
def _attn_fwd(
    Q, K, V, Out, sm_scale, N_CTX,
    HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):  # fmt: skip
    start_m = tl.program_id(0)
    base = tl.program_id(1) * N_CTX * HEAD_DIM
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(Q + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :])
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    for start_n in range(0, N_CTX, BLOCK_N):
        cols = start_n + tl.arange(0, BLOCK_N)
        kv = base + cols[:, None] * HEAD_DIM + offs_d[None, :]
        k = tl.load(K + kv)
        qk = tl.dot(q, tl.trans(k)) * qk_scale
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        v = tl.load(V + kv)
        acc = acc * alpha[:, None] + tl.dot(p, v)
        l_i = l_i * alpha + tl.sum(p, 1)
        m_i = m_ij
    tl.store(Out + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], acc / l_i[:, None])


def attention(q, k, v):
    """q, k, v: (batch, heads, n, d) float32, d a power of two, at least 16."""
    q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
    out = torch.empty_like(q)
    n, d = q.shape[2], q.shape[3]
    grid = (triton.cdiv(n, BLOCK_M), q.shape[0] * q.shape[1])
    _attn_fwd[grid](q, k, v, out, d**-0.5, n, HEAD_DIM=d, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out
