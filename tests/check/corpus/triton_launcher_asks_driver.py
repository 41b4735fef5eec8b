"""Correct (Triton): a forward-only online-softmax kernel launched the way published launchers
are (Triton's tutorial 06 since 2024): the device is asked of Triton's driver at import, the
autotuning configs ask `is_hip()`, and the first config is one the kernel refuses at small head
sizes (a key block wider than the head, a static_assert). On a CPU there is no driver to ask:
the checker's stand-in answers, and autotuning takes the first config that runs.
"""

import torch
import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


def is_hip():
    return triton.runtime.driver.active.get_current_target().backend == "hip"


configs = [
    triton.Config({"BLOCK_N": bn}, num_stages=1 if is_hip() else 3, num_warps=4) for bn in (32, 16)
]


@triton.autotune(configs, key=["N_CTX", "HEAD_DIM"])
@triton.jit
def _fwd(Q, K, V, Out, sm_scale, N_CTX, HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr):
    tl.static_assert(BLOCK_N <= HEAD_DIM)
    BLOCK_M: tl.constexpr = 16
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    base = tl.program_id(1) * N_CTX * HEAD_DIM
    offs_d = tl.arange(0, HEAD_DIM)
    seen = rows < N_CTX
    q = tl.load(Q + base + rows[:, None] * HEAD_DIM + offs_d[None, :], mask=seen[:, None])
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    for start in range(0, N_CTX, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        keep = cols < N_CTX
        at = base + cols[:, None] * HEAD_DIM + offs_d[None, :]
        k = tl.load(K + at, mask=keep[:, None], other=0.0)
        s = tl.dot(q, tl.trans(k)) * sm_scale
        s = tl.where(keep[None, :], s, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.exp(s - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        v = tl.load(V + at, mask=keep[:, None], other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p, v)
        l_i = l_i * alpha + tl.sum(p, 1)
        m_i = m_new
    out = Out + base + rows[:, None] * HEAD_DIM + offs_d[None, :]
    tl.store(out, acc / l_i[:, None], mask=seen[:, None])


def attention(q, k, v):
    """q, k, v: (batch, heads, n, d) float32 on DEVICE, d a power of two, at least 16."""
    assert q.device == DEVICE and q.dtype == torch.float32
    q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
    out = torch.empty_like(q)
    grid = (triton.cdiv(q.shape[2], 16), q.shape[0] * q.shape[1])
    _fwd[grid](q, k, v, out, q.shape[-1] ** -0.5, q.shape[2], HEAD_DIM=q.shape[-1])
    return out
