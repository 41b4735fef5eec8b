"""Correct (Triton): FlashAttention forward and backward in the style of flash-attention's
experimental Triton kernel: (batch, seqlen, nheads, headdim) tensors, fp16 or bf16 only, any
seqlen and any head size up to 128 (BLOCK_HEADDIM the next power of two, the rest masked, with
EVEN_M / EVEN_N / EVEN_HEADDIM heuristics), an optional bias added to the scores, `causal` and
`softmax_scale` passed to flash_attn_func(q, k, v, bias=None, causal=False, softmax_scale=None).
The forward keeps the running log-sum-exp `lse_i` instead of m and l, and stores it; the
backward has a preprocess for delta = rowsum(o * do) and one program per key block that walks
the query blocks (from the diagonal on when causal) and adds its share of dq atomically.
Written here (not copied) with small blocks so Triton's interpreter runs it on a CPU.

after: Dao-AILab/flash-attention flash_attn/flash_attn_triton.py
commit: 6b5f271c6d9f9a42a0f440c025b55f5a35119a13
licence: BSD-3-Clause (the original)
target: flash_attn_func
expected: ok
layout: bnhd
"""

import math

import torch
import triton
import triton.language as tl

BLOCK = 16


@triton.heuristics(
    {
        "EVEN_M": lambda args: args["seqlen_q"] % args["BLOCK_M"] == 0,
        "EVEN_N": lambda args: args["seqlen_k"] % args["BLOCK_N"] == 0,
        "EVEN_HEADDIM": lambda args: args["headdim"] == args["BLOCK_HEADDIM"],
    }
)
@triton.jit
def _fwd_kernel(
    Q, K, V, Bias, Out, Lse,
    softmax_scale,
    stride_qb, stride_qm, stride_qh,
    stride_bb, stride_bh, stride_bm,
    nheads, seqlen_q, seqlen_k, headdim,
    HAS_BIAS: tl.constexpr, IS_CAUSAL: tl.constexpr, BLOCK_HEADDIM: tl.constexpr,
    EVEN_M: tl.constexpr, EVEN_N: tl.constexpr, EVEN_HEADDIM: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):  # fmt: skip
    start_m = tl.program_id(0)
    off_hb = tl.program_id(1)
    off_b = off_hb // nheads
    off_h = off_hb % nheads
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, BLOCK_HEADDIM)
    base = off_b * stride_qb + off_h * stride_qh
    q_ptrs = Q + base + offs_m[:, None] * stride_qm + offs_d[None, :]
    row_ok = offs_m[:, None] < seqlen_q
    col_ok = offs_d[None, :] < headdim
    q = tl.load(q_ptrs, mask=row_ok & col_ok, other=0.0)
    lse_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    acc_o = tl.zeros([BLOCK_M, BLOCK_HEADDIM], dtype=tl.float32)
    end_n = seqlen_k if not IS_CAUSAL else tl.minimum((start_m + 1) * BLOCK_M, seqlen_k)
    for start_n in range(0, end_n, BLOCK_N):
        cols = start_n + offs_n
        kv_ok = (cols[:, None] < seqlen_k) & col_ok
        k = tl.load(K + base + cols[:, None] * stride_qm + offs_d[None, :], mask=kv_ok, other=0.0)
        qk = tl.dot(q, tl.trans(k))
        if not EVEN_N:
            qk += tl.where(cols[None, :] < seqlen_k, 0, float("-inf"))
        if IS_CAUSAL:
            qk += tl.where(offs_m[:, None] >= cols[None, :], 0, float("-inf"))
        if HAS_BIAS:
            b_ptrs = Bias + off_b * stride_bb + off_h * stride_bh + offs_m[:, None] * stride_bm
            bias = tl.load(b_ptrs + cols[None, :], mask=row_ok & (cols[None, :] < seqlen_k))
            qk = qk * softmax_scale + bias.to(tl.float32)
            m_ij = tl.maximum(tl.max(qk, 1), lse_i)
            p = tl.exp(qk - m_ij[:, None])
        else:
            m_ij = tl.maximum(tl.max(qk, 1) * softmax_scale, lse_i)
            p = tl.exp(qk * softmax_scale - m_ij[:, None])
        l_ij = tl.sum(p, 1)
        acc_o_scale = tl.exp(m_i - m_ij)
        acc_o = acc_o * acc_o_scale[:, None]
        v = tl.load(V + base + cols[:, None] * stride_qm + offs_d[None, :], mask=kv_ok, other=0.0)
        acc_o += tl.dot(p.to(v.dtype), v)
        m_i = m_ij
        l_i_new = tl.exp(lse_i - m_ij) + l_ij
        lse_i = m_ij + tl.log(l_i_new)
    o_scale = tl.exp(m_i - lse_i)
    acc_o = acc_o * o_scale[:, None]
    tl.store(Lse + off_hb * seqlen_q + offs_m, lse_i, mask=offs_m < seqlen_q)
    out_ptrs = Out + base + offs_m[:, None] * stride_qm + offs_d[None, :]
    tl.store(out_ptrs, acc_o.to(Out.dtype.element_ty), mask=row_ok & col_ok)


@triton.jit
def _bwd_preprocess_do_o_dot(
    Out, DO, Delta, stride_ob, stride_om, stride_oh, nheads, seqlen_q, headdim,
    BLOCK_M: tl.constexpr, BLOCK_HEADDIM: tl.constexpr,
):  # fmt: skip
    start_m = tl.program_id(0)
    off_hb = tl.program_id(1)
    off_b = off_hb // nheads
    off_h = off_hb % nheads
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, BLOCK_HEADDIM)
    at = off_b * stride_ob + off_h * stride_oh + offs_m[:, None] * stride_om + offs_d[None, :]
    ok = (offs_m[:, None] < seqlen_q) & (offs_d[None, :] < headdim)
    o = tl.load(Out + at, mask=ok, other=0.0).to(tl.float32)
    do = tl.load(DO + at, mask=ok, other=0.0).to(tl.float32)
    tl.store(Delta + off_hb * seqlen_q + offs_m, tl.sum(o * do, axis=1), mask=offs_m < seqlen_q)


@triton.jit
def _bwd_kernel_one_col_block(
    Q, K, V, Bias, DO, DQ, DK, DV, LSE, D,
    softmax_scale,
    stride_qb, stride_qm, stride_qh,
    stride_bb, stride_bh, stride_bm,
    nheads, seqlen_q, seqlen_k, headdim,
    HAS_BIAS: tl.constexpr, IS_CAUSAL: tl.constexpr, BLOCK_HEADDIM: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):  # fmt: skip
    start_n = tl.program_id(0)
    off_hb = tl.program_id(1)
    off_b = off_hb // nheads
    off_h = off_hb % nheads
    base = off_b * stride_qb + off_h * stride_qh
    offs_n = start_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_m = tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, BLOCK_HEADDIM)
    col_ok = offs_d[None, :] < headdim
    kv_ok = (offs_n[:, None] < seqlen_k) & col_ok
    kv_at = base + offs_n[:, None] * stride_qm + offs_d[None, :]
    k = tl.load(K + kv_at, mask=kv_ok, other=0.0)
    v = tl.load(V + kv_at, mask=kv_ok, other=0.0)
    dv = tl.zeros([BLOCK_N, BLOCK_HEADDIM], dtype=tl.float32)
    dk = tl.zeros([BLOCK_N, BLOCK_HEADDIM], dtype=tl.float32)
    # causal: the query blocks before this key block see none of it
    begin_m = ((start_n * BLOCK_N) // BLOCK_M) * BLOCK_M if IS_CAUSAL else 0
    for start_m in range(begin_m, seqlen_q, BLOCK_M):
        rows = start_m + offs_m
        q_ok = (rows[:, None] < seqlen_q) & col_ok
        q_at = base + rows[:, None] * stride_qm + offs_d[None, :]
        q = tl.load(Q + q_at, mask=q_ok, other=0.0)
        qk = tl.dot(q, tl.trans(k))
        qk = tl.where(offs_n[None, :] < seqlen_k, qk, float("-inf"))
        if IS_CAUSAL:
            qk = tl.where(rows[:, None] >= offs_n[None, :], qk, float("-inf"))
        lse_i = tl.load(LSE + off_hb * seqlen_q + rows, mask=rows < seqlen_q, other=0.0)
        if HAS_BIAS:
            b_ptrs = Bias + off_b * stride_bb + off_h * stride_bh + rows[:, None] * stride_bm
            bias = tl.load(
                b_ptrs + offs_n[None, :],
                mask=(rows[:, None] < seqlen_q) & (offs_n[None, :] < seqlen_k),
                other=0.0,
            )
            p = tl.exp(qk * softmax_scale + bias.to(tl.float32) - lse_i[:, None])
        else:
            p = tl.exp(qk * softmax_scale - lse_i[:, None])
        p = tl.where(rows[:, None] < seqlen_q, p, 0.0)
        do = tl.load(DO + q_at, mask=q_ok, other=0.0)
        dv += tl.dot(tl.trans(p.to(do.dtype)), do)
        dp = tl.dot(do, tl.trans(v))
        Di = tl.load(D + off_hb * seqlen_q + rows, mask=rows < seqlen_q, other=0.0)
        ds = (p * (dp - Di[:, None]) * softmax_scale).to(q.dtype)
        dk += tl.dot(tl.trans(ds), q)
        tl.atomic_add(DQ + q_at, tl.dot(ds, k), mask=q_ok)
    tl.store(DV + kv_at, dv.to(DV.dtype.element_ty), mask=kv_ok)
    tl.store(DK + kv_at, dk.to(DK.dtype.element_ty), mask=kv_ok)


def _flash_attn_forward(q, k, v, bias=None, causal=False, softmax_scale=None):
    batch, seqlen_q, nheads, d = q.shape
    _, seqlen_k, _, _ = k.shape
    assert k.shape == (batch, seqlen_k, nheads, d)
    assert v.shape == (batch, seqlen_k, nheads, d)
    assert d <= 128, "FlashAttention only support head dimensions up to 128"
    assert q.dtype == k.dtype == v.dtype, "All tensors must have the same type"
    assert q.dtype in [torch.float16, torch.bfloat16], "Only support fp16 and bf16"
    softmax_scale = softmax_scale or 1.0 / math.sqrt(d)
    has_bias = bias is not None
    if has_bias:
        bias = bias.expand(batch, nheads, seqlen_q, seqlen_k).contiguous()
    bias_strides = (bias.stride(0), bias.stride(1), bias.stride(2)) if has_bias else (0, 0, 0)
    lse = torch.empty((batch, nheads, seqlen_q), device=q.device, dtype=torch.float32)
    o = torch.empty_like(q)
    BLOCK_HEADDIM = max(triton.next_power_of_2(d), 16)
    grid = (triton.cdiv(seqlen_q, BLOCK), batch * nheads)
    _fwd_kernel[grid](
        q, k, v, bias, o, lse, softmax_scale,
        q.stride(0), q.stride(1), q.stride(2), *bias_strides,
        nheads, seqlen_q, seqlen_k, d,
        HAS_BIAS=has_bias, IS_CAUSAL=causal, BLOCK_HEADDIM=BLOCK_HEADDIM,
        BLOCK_M=BLOCK, BLOCK_N=BLOCK, num_warps=4, num_stages=1,
    )  # fmt: skip
    return o, lse, softmax_scale


def _flash_attn_backward(do, q, k, v, o, lse, dq, dk, dv, bias, causal, softmax_scale):
    batch, seqlen_q, nheads, d = q.shape
    seqlen_k = k.shape[1]
    BLOCK_HEADDIM = max(triton.next_power_of_2(d), 16)
    delta = torch.empty_like(lse)
    grid = (triton.cdiv(seqlen_q, BLOCK), batch * nheads)
    _bwd_preprocess_do_o_dot[grid](
        o, do, delta, o.stride(0), o.stride(1), o.stride(2), nheads, seqlen_q, d,
        BLOCK_M=BLOCK, BLOCK_HEADDIM=BLOCK_HEADDIM,
    )  # fmt: skip
    has_bias = bias is not None
    bias_strides = (bias.stride(0), bias.stride(1), bias.stride(2)) if has_bias else (0, 0, 0)
    dq_accum = torch.zeros_like(q, dtype=torch.float32)
    grid = (triton.cdiv(seqlen_k, BLOCK), batch * nheads)
    _bwd_kernel_one_col_block[grid](
        q, k, v, bias, do, dq_accum, dk, dv, lse, delta, softmax_scale,
        q.stride(0), q.stride(1), q.stride(2), *bias_strides,
        nheads, seqlen_q, seqlen_k, d,
        HAS_BIAS=has_bias, IS_CAUSAL=causal, BLOCK_HEADDIM=BLOCK_HEADDIM,
        BLOCK_M=BLOCK, BLOCK_N=BLOCK, num_warps=4, num_stages=1,
    )  # fmt: skip
    dq.copy_(dq_accum)


class FlashAttnFunc(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, bias=None, causal=False, softmax_scale=None):
        """q, k, v: (batch, seqlen, nheads, headdim); bias broadcastable to
        (batch, nheads, seqlen_q, seqlen_k)."""
        q, k, v = [x if x.stride(-1) == 1 else x.contiguous() for x in [q, k, v]]
        q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
        o, lse, ctx.softmax_scale = _flash_attn_forward(
            q, k, v, bias=bias, causal=causal, softmax_scale=softmax_scale
        )
        ctx.save_for_backward(q, k, v, o, lse, bias)
        ctx.causal = causal
        return o

    @staticmethod
    def backward(ctx, do):
        q, k, v, o, lse, bias = ctx.saved_tensors
        with torch.inference_mode():
            dq, dk, dv = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
            _flash_attn_backward(
                do.contiguous(), q, k, v, o, lse, dq, dk, dv,
                bias=bias, causal=ctx.causal, softmax_scale=ctx.softmax_scale,
            )  # fmt: skip
        return dq, dk, dv, None, None, None


def flash_attn_func(q, k, v, bias=None, causal=False, softmax_scale=None):
    return FlashAttnFunc.apply(q, k, v, bias, causal, softmax_scale)
