"""Correct (Triton): fused attention forward and backward in the style of Triton's tutorial
06-fused-attention (FlashAttention-2: an online softmax over key blocks saving the log-sum-exp
in base 2, a preprocess for delta = rowsum(dO * O), one kernel for dk and dv over query blocks
and one for dq over key blocks), written here with plain pointer arithmetic and small blocks
so that Triton's interpreter runs it on a CPU. Like the tutorial it takes (batch, heads, n, d)
half-precision tensors, a head size that is a power of two and n a multiple of its block, and
is called as attention(q, k, v, causal, sm_scale).
"""

import torch
import triton
import triton.language as tl

BLOCK = 16


@triton.jit
def _attn_fwd(
    Q,
    K,
    V,
    sm_scale,
    M,
    Out,
    N_CTX,
    HEAD_DIM: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    CAUSAL: tl.constexpr,
):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    base = off_hz * N_CTX * HEAD_DIM
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(Q + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :])
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504  # exp2 instead of exp
    hi = (start_m + 1) * BLOCK_M if CAUSAL else N_CTX
    for start_n in range(0, hi, BLOCK_N):
        cols = start_n + offs_n
        k = tl.load(K + base + cols[None, :] * HEAD_DIM + offs_d[:, None])
        qk = tl.dot(q, k) * qk_scale
        if CAUSAL:
            qk = tl.where(offs_m[:, None] >= cols[None, :], qk, -1.0e6)
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(V + base + cols[:, None] * HEAD_DIM + offs_d[None, :])
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
        m_i = m_ij
    m_i += tl.math.log2(l_i)
    acc = acc / l_i[:, None]
    tl.store(M + off_hz * N_CTX + offs_m, m_i)
    tl.store(Out + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], acc.to(tl.float16))


@triton.jit
def _attn_bwd_preprocess(Out, DO, Delta, N_CTX, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr):
    off_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    off_hz = tl.program_id(1)
    offs_d = tl.arange(0, HEAD_DIM)
    at = off_hz * N_CTX * HEAD_DIM + off_m[:, None] * HEAD_DIM + offs_d[None, :]
    o = tl.load(Out + at).to(tl.float32)
    do = tl.load(DO + at).to(tl.float32)
    tl.store(Delta + off_hz * N_CTX + off_m, tl.sum(o * do, axis=1))


@triton.jit
def _attn_bwd_dkdv(
    Q,
    K,
    V,
    sm_scale,
    DO,
    DK,
    DV,
    M,
    D,
    N_CTX,
    HEAD_DIM: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    CAUSAL: tl.constexpr,
):
    start_n = tl.program_id(0) * BLOCK_N
    off_hz = tl.program_id(1)
    base = off_hz * N_CTX * HEAD_DIM
    offs_n = start_n + tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    k = tl.load(K + base + offs_n[:, None] * HEAD_DIM + offs_d[None, :])
    v = tl.load(V + base + offs_n[:, None] * HEAD_DIM + offs_d[None, :])
    dk = tl.zeros([BLOCK_N, HEAD_DIM], dtype=tl.float32)
    dv = tl.zeros([BLOCK_N, HEAD_DIM], dtype=tl.float32)
    lo = start_n if CAUSAL else 0
    for start_m in range(lo, N_CTX, BLOCK_M):
        offs_m = start_m + tl.arange(0, BLOCK_M)
        qT = tl.load(Q + base + offs_m[None, :] * HEAD_DIM + offs_d[:, None])
        m = tl.load(M + off_hz * N_CTX + offs_m)
        qkT = tl.dot(k, qT) * (sm_scale * 1.44269504)
        pT = tl.math.exp2(qkT - m[None, :])
        if CAUSAL:
            pT = tl.where(offs_m[None, :] >= offs_n[:, None], pT, 0.0)
        do = tl.load(DO + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :])
        dv += tl.dot(pT.to(tl.float16), do)
        Di = tl.load(D + off_hz * N_CTX + offs_m)
        dpT = tl.dot(v, tl.trans(do)).to(tl.float32)
        dsT = pT * (dpT - Di[None, :])
        dk += tl.dot(dsT.to(tl.float16), tl.trans(qT))
    at = base + offs_n[:, None] * HEAD_DIM + offs_d[None, :]
    tl.store(DV + at, dv.to(tl.float16))
    tl.store(DK + at, (dk * sm_scale).to(tl.float16))


@triton.jit
def _attn_bwd_dq(
    Q,
    K,
    V,
    sm_scale,
    DO,
    DQ,
    M,
    D,
    N_CTX,
    HEAD_DIM: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    CAUSAL: tl.constexpr,
):
    start_m = tl.program_id(0) * BLOCK_M
    off_hz = tl.program_id(1)
    base = off_hz * N_CTX * HEAD_DIM
    offs_m = start_m + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(Q + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :])
    do = tl.load(DO + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :])
    m = tl.load(M + off_hz * N_CTX + offs_m)
    Di = tl.load(D + off_hz * N_CTX + offs_m)
    dq = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    hi = start_m + BLOCK_M if CAUSAL else N_CTX
    for start_n in range(0, hi, BLOCK_N):
        offs_n = start_n + tl.arange(0, BLOCK_N)
        kT = tl.load(K + base + offs_n[None, :] * HEAD_DIM + offs_d[:, None])
        vT = tl.load(V + base + offs_n[None, :] * HEAD_DIM + offs_d[:, None])
        qk = tl.dot(q, kT) * (sm_scale * 1.44269504)
        p = tl.math.exp2(qk - m[:, None])
        if CAUSAL:
            p = tl.where(offs_m[:, None] >= offs_n[None, :], p, 0.0)
        dp = tl.dot(do, vT).to(tl.float32)
        ds = p * (dp - Di[:, None])
        dq += tl.dot(ds.to(tl.float16), tl.trans(kT))
    tl.store(
        DQ + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], (dq * sm_scale).to(tl.float16)
    )


class _attention(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, causal, sm_scale):
        HEAD_DIM = q.shape[-1]
        assert q.dtype == torch.float16, "fp16 only"
        assert HEAD_DIM in {16, 32, 64, 128}
        assert q.shape[2] % BLOCK == 0, f"N_CTX must be a multiple of {BLOCK}"
        q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
        o = torch.empty_like(q)
        M = torch.empty((q.shape[0], q.shape[1], q.shape[2]), device=q.device, dtype=torch.float32)
        grid = (q.shape[2] // BLOCK, q.shape[0] * q.shape[1])
        _attn_fwd[grid](
            q,
            k,
            v,
            sm_scale,
            M,
            o,
            q.shape[2],
            HEAD_DIM=HEAD_DIM,
            BLOCK_M=BLOCK,
            BLOCK_N=BLOCK,
            CAUSAL=causal,
        )
        ctx.save_for_backward(q, k, v, o, M)
        ctx.sm_scale, ctx.causal = sm_scale, causal
        return o

    @staticmethod
    def backward(ctx, do):
        q, k, v, o, M = ctx.saved_tensors
        do = do.contiguous()
        dq, dk, dv = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
        N_CTX, HEAD_DIM = q.shape[2], q.shape[3]
        grid = (N_CTX // BLOCK, q.shape[0] * q.shape[1])
        delta = torch.empty_like(M)
        _attn_bwd_preprocess[grid](o, do, delta, N_CTX, HEAD_DIM=HEAD_DIM, BLOCK_M=BLOCK)
        _attn_bwd_dkdv[grid](
            q,
            k,
            v,
            ctx.sm_scale,
            do,
            dk,
            dv,
            M,
            delta,
            N_CTX,
            HEAD_DIM=HEAD_DIM,
            BLOCK_M=BLOCK,
            BLOCK_N=BLOCK,
            CAUSAL=ctx.causal,
        )
        _attn_bwd_dq[grid](
            q,
            k,
            v,
            ctx.sm_scale,
            do,
            dq,
            M,
            delta,
            N_CTX,
            HEAD_DIM=HEAD_DIM,
            BLOCK_M=BLOCK,
            BLOCK_N=BLOCK,
            CAUSAL=ctx.causal,
        )
        return dq, dk, dv, None, None


attention = _attention.apply
