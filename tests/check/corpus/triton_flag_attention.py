"""Correct (Triton): FlashAttention-2 forward and backward in the style of FlagAttention's
`flag_attn.attention`: (batch, heads, seqlen, headdim) tensors, head sizes 16, 32, 64 or 128
only (asserted), keys possibly longer than queries (P_SEQ = N - M: the queries are the last M
positions, so causal lets query i see keys up to P_SEQ + i), a three-axis grid (query block,
head, batch), block sizes from a per-GPU table with a plain fallback, the launch inside
`torch.cuda.device(...)`, exp2 with sm_scale * log2(e), the log-normalizer L stored by the
forward, and a backward of three kernels: delta = rowsum(o * do), one program per key block
for dk and dv, one per query block for dq (no atomics). Any seqlen: DIVISIBLE_M / DIVISIBLE_N
choose masked loads. Written here (not copied), with the fallback blocks small enough for
Triton's interpreter on a CPU.

after: FlagOpen/FlagAttention src/flag_attn/flash.py
commit: 08c365f0814204619a1a5a85a24ced87a5b5ec4e
licence: Apache-2.0 (the original)
target: attention
expected: ok
"""

import math

import torch
import triton
import triton.language as tl


def get_config(M, N, D, causal):
    """(BLOCK_M, BLOCK_N, num_stages, num_warps): tuned per GPU, a plain fallback elsewhere."""
    if torch.cuda.is_available() and torch.cuda.get_device_capability() == (8, 0):
        return (128, 64, 3, 4) if D <= 64 else (128, 32, 3, 4)
    return (16, 16, 1, 4)


class FlashAttention(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, causal, sm_scale, return_log_normalizer):
        Dq, Dk, Dv = q.shape[-1], k.shape[-1], v.shape[-1]
        assert Dq == Dk == Dv
        assert Dk in {16, 32, 64, 128}
        B, H, M, D = q.shape
        N = k.shape[2]
        P_SEQ = N - M
        if sm_scale is None:
            sm_scale = 1.0 / math.sqrt(D)
        with torch.cuda.device_of(q):  # the launch on q's GPU, not the current one
            BLOCK_M, BLOCK_N, num_stages, num_warps = get_config(M, N, D, causal)
            o = torch.empty_like(q)
            L = torch.empty((B, H, M), device=q.device, dtype=torch.float32)
            grid = (triton.cdiv(M, BLOCK_M), H, B)
            _fwd_kernel[grid](
                q, k, v, sm_scale, L, o,
                *q.stride(), *k.stride(), *v.stride(), *o.stride(),
                H, M, N, P_SEQ,
                BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_DMODEL=D, IS_CAUSAL=causal,
                DIVISIBLE_M=M % BLOCK_M == 0, DIVISIBLE_N=N % BLOCK_N == 0,
                num_warps=num_warps, num_stages=num_stages,
            )  # fmt: skip
        ctx.save_for_backward(q, k, v, o, L)
        ctx.sm_scale, ctx.causal = sm_scale, causal
        return (o, L) if return_log_normalizer else o

    @staticmethod
    def backward(ctx, do, *ignored):
        q, k, v, o, L = ctx.saved_tensors
        B, H, M, D = q.shape
        N = k.shape[2]
        P_SEQ = N - M
        with torch.cuda.device_of(q):
            BLOCK_M, BLOCK_N, num_stages, num_warps = get_config(M, N, D, ctx.causal)
            divisible = dict(DIVISIBLE_M=M % BLOCK_M == 0, DIVISIBLE_N=N % BLOCK_N == 0)
            delta = torch.empty_like(L)
            _bwd_preprocess[(triton.cdiv(M, BLOCK_M), H, B)](
                o, do, delta, *o.stride(), *do.stride(), *delta.stride(), M,
                BLOCK_M=BLOCK_M, D_HEAD=D, DIVISIBLE_M=divisible["DIVISIBLE_M"],
            )  # fmt: skip
            dk, dv = torch.empty_like(k), torch.empty_like(v)
            _bwd_kv_kernel[(triton.cdiv(N, BLOCK_N), H, B)](
                q, k, v, ctx.sm_scale, do, dk, dv, L, delta,
                *q.stride(), *k.stride(), *v.stride(), *do.stride(), *dk.stride(),
                *dv.stride(), H, M, N, P_SEQ,
                BLOCK_M=BLOCK_M, BLOCK_DMODEL=D, BLOCK_N=BLOCK_N, CAUSAL=ctx.causal,
                num_warps=num_warps, num_stages=num_stages, **divisible,
            )  # fmt: skip
            dq = torch.zeros_like(q)
            _bwd_q_kernel[(triton.cdiv(M, BLOCK_M), H, B)](
                q, k, v, ctx.sm_scale, do, dq, L, delta,
                *q.stride(), *k.stride(), *v.stride(), *do.stride(), *dq.stride(),
                H, M, N, P_SEQ,
                BLOCK_M=BLOCK_M, BLOCK_DMODEL=D, BLOCK_N=BLOCK_N, CAUSAL=ctx.causal,
                num_warps=num_warps, num_stages=num_stages, **divisible,
            )  # fmt: skip
        return dq, dk, dv, None, None, None


def attention(q, k, v, causal=False, sm_scale=None, return_log_normalizer=False):
    """q: (batch, heads, seqlen_q, headdim); k, v: (batch, heads, seqlen_k, headdim)."""
    return FlashAttention.apply(q, k, v, causal, sm_scale, return_log_normalizer)


@triton.jit
def _fwd_kernel(
    Q, K, V, sm_scale, L, Out,
    stride_qz, stride_qh, stride_qm, stride_qk,
    stride_kz, stride_kh, stride_kn, stride_kk,
    stride_vz, stride_vh, stride_vn, stride_vk,
    stride_oz, stride_oh, stride_om, stride_ok,
    H, M, N, P_SEQ,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_DMODEL: tl.constexpr,
    IS_CAUSAL: tl.constexpr, DIVISIBLE_M: tl.constexpr, DIVISIBLE_N: tl.constexpr,
):  # fmt: skip
    input_dtype = Q.dtype.element_ty
    start_m = tl.program_id(0)
    off_h = tl.program_id(1)
    off_z = tl.program_id(2)
    qk_scale = sm_scale * 1.4426950408889634  # exp(x) = exp2(x * log2(e))
    Q += off_z * stride_qz + off_h * stride_qh
    K += off_z * stride_kz + off_h * stride_kh
    V += off_z * stride_vz + off_h * stride_vh
    Out += off_z * stride_oz + off_h * stride_oh
    L += (off_z * H + off_h) * M

    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n_base = tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_DMODEL)
    mask_m = offs_m < M
    q_ptrs = Q + offs_m[:, None] * stride_qm + offs_k[None, :] * stride_qk
    q = tl.load(q_ptrs) if DIVISIBLE_M else tl.load(q_ptrs, mask=mask_m[:, None])

    m_i = tl.full([BLOCK_M], value=-float("inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, BLOCK_DMODEL], dtype=tl.float32)
    # causal: this block's last query sees keys up to P_SEQ + its row, never past N
    hi = tl.minimum(N, P_SEQ + (start_m + 1) * BLOCK_M) if IS_CAUSAL else N
    k_ptrs = K + offs_k[:, None] * stride_kk + offs_n_base[None, :] * stride_kn  # (D, BLOCK_N)
    v_ptrs = V + offs_n_base[:, None] * stride_vn + offs_k[None, :] * stride_vk  # (BLOCK_N, D)
    for start_n in range(0, hi, BLOCK_N):
        offs_n = start_n + offs_n_base
        mask_n = offs_n < N
        if DIVISIBLE_N:
            k = tl.load(k_ptrs)
            v = tl.load(v_ptrs)
        else:
            k = tl.load(k_ptrs, mask=mask_n[None, :])
            v = tl.load(v_ptrs, mask=mask_n[:, None])
        s = tl.dot(q, k)
        if not DIVISIBLE_N:
            s = tl.where(mask_n[None, :], s, float("-inf"))
        if IS_CAUSAL:
            s = tl.where((P_SEQ + offs_m[:, None]) >= offs_n[None, :], s, float("-inf"))
        m_i_new = tl.maximum(m_i, tl.max(s, 1))
        alpha = tl.math.exp2((m_i - m_i_new) * qk_scale)
        p = tl.math.exp2(s * qk_scale - m_i_new[:, None] * qk_scale)
        acc = acc * alpha[:, None] + tl.dot(p.to(input_dtype), v)
        l_i = l_i * alpha + tl.sum(p, 1)
        m_i = m_i_new
        k_ptrs += BLOCK_N * stride_kn
        v_ptrs += BLOCK_N * stride_vn

    acc = acc / l_i[:, None]
    log_normalizer = m_i * sm_scale + tl.log(l_i)
    o_ptrs = Out + offs_m[:, None] * stride_om + offs_k[None, :] * stride_ok
    if DIVISIBLE_M:
        tl.store(L + offs_m, log_normalizer)
        tl.store(o_ptrs, acc.to(input_dtype))
    else:
        tl.store(L + offs_m, log_normalizer, mask=mask_m)
        tl.store(o_ptrs, acc.to(input_dtype), mask=mask_m[:, None])


@triton.jit
def _bwd_preprocess(
    Out, DO, Delta,
    stride_oz, stride_oh, stride_om, stride_ok,
    stride_doz, stride_doh, stride_dom, stride_dok,
    stride_dz, stride_dh, stride_dm,
    M,
    BLOCK_M: tl.constexpr, D_HEAD: tl.constexpr, DIVISIBLE_M: tl.constexpr,
):  # fmt: skip
    off_h = tl.program_id(1)
    off_z = tl.program_id(2)
    off_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    off_n = tl.arange(0, D_HEAD)
    # o and do by their own strides: do need not be laid out as o is
    o_ptrs = Out + off_z * stride_oz + off_h * stride_oh
    o_ptrs += off_m[:, None] * stride_om + off_n[None, :] * stride_ok
    do_ptrs = DO + off_z * stride_doz + off_h * stride_doh
    do_ptrs += off_m[:, None] * stride_dom + off_n[None, :] * stride_dok
    d_ptrs = Delta + off_z * stride_dz + off_h * stride_dh + off_m * stride_dm
    if DIVISIBLE_M:
        o = tl.load(o_ptrs).to(tl.float32)
        do = tl.load(do_ptrs).to(tl.float32)
        tl.store(d_ptrs, tl.sum(o * do, axis=1))
    else:
        mask_m = off_m < M
        o = tl.load(o_ptrs, mask=mask_m[:, None]).to(tl.float32)
        do = tl.load(do_ptrs, mask=mask_m[:, None]).to(tl.float32)
        tl.store(d_ptrs, tl.sum(o * do, axis=1), mask=mask_m)


@triton.jit
def _bwd_kv_kernel(
    Q, K, V, sm_scale, DO, DK, DV, L, D,
    stride_qz, stride_qh, stride_qm, stride_qk,
    stride_kz, stride_kh, stride_kn, stride_kk,
    stride_vz, stride_vh, stride_vn, stride_vk,
    stride_doz, stride_doh, stride_dom, stride_dok,
    stride_dkz, stride_dkh, stride_dkn, stride_dkk,
    stride_dvz, stride_dvh, stride_dvn, stride_dvk,
    H, M, N, P_SEQ,
    BLOCK_M: tl.constexpr, BLOCK_DMODEL: tl.constexpr, BLOCK_N: tl.constexpr,
    CAUSAL: tl.constexpr, DIVISIBLE_M: tl.constexpr, DIVISIBLE_N: tl.constexpr,
):  # fmt: skip
    input_dtype = Q.dtype.element_ty
    start_n = tl.program_id(0)
    off_h = tl.program_id(1)
    off_z = tl.program_id(2)
    log2e: tl.constexpr = 1.4426950408889634
    qk_scale = sm_scale * log2e
    Q += off_z * stride_qz + off_h * stride_qh
    K += off_z * stride_kz + off_h * stride_kh
    V += off_z * stride_vz + off_h * stride_vh
    DO += off_z * stride_doz + off_h * stride_doh
    DK += off_z * stride_dkz + off_h * stride_dkh
    DV += off_z * stride_dvz + off_h * stride_dvh
    D += (off_z * H + off_h) * M
    L += (off_z * H + off_h) * M

    # causal: the queries before this key block (less the P_SEQ offset) never see it
    lo = tl.maximum(start_n * BLOCK_N - P_SEQ, 0) // BLOCK_M * BLOCK_M if CAUSAL else 0
    offs_n = start_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_m_base = tl.arange(0, BLOCK_M)
    offs_k = tl.arange(0, BLOCK_DMODEL)
    mask_n = offs_n < N
    k_ptrs = K + offs_n[:, None] * stride_kn + offs_k[None, :] * stride_kk
    v_ptrs = V + offs_n[:, None] * stride_vn + offs_k[None, :] * stride_vk
    if DIVISIBLE_N:
        k = tl.load(k_ptrs)
        v = tl.load(v_ptrs)
    else:
        k = tl.load(k_ptrs, mask=mask_n[:, None])
        v = tl.load(v_ptrs, mask=mask_n[:, None])
    dk = tl.zeros([BLOCK_N, BLOCK_DMODEL], dtype=tl.float32)
    dv = tl.zeros([BLOCK_N, BLOCK_DMODEL], dtype=tl.float32)
    for start_m in range(lo, M, BLOCK_M):
        offs_m = start_m + offs_m_base
        mask_m = offs_m < M
        q_ptrs = Q + offs_m[:, None] * stride_qm + offs_k[None, :] * stride_qk
        do_ptrs = DO + offs_m[:, None] * stride_dom + offs_k[None, :] * stride_dok
        if DIVISIBLE_M:
            q = tl.load(q_ptrs)
            do = tl.load(do_ptrs)
            log_norm = tl.load(L + offs_m)
            delta = tl.load(D + offs_m)
        else:
            q = tl.load(q_ptrs, mask=mask_m[:, None])
            do = tl.load(do_ptrs, mask=mask_m[:, None])
            log_norm = tl.load(L + offs_m, mask=mask_m)
            delta = tl.load(D + offs_m, mask=mask_m)
        # the forward's weights again, from its log-normalizer: no max, no sum needed
        s = tl.dot(q, tl.trans(k))
        p = tl.math.exp2(s * qk_scale - log_norm[:, None] * log2e)
        if not DIVISIBLE_M:
            p = tl.where(mask_m[:, None], p, 0.0)
        if CAUSAL:
            p = tl.where((P_SEQ + offs_m[:, None]) >= offs_n[None, :], p, 0.0)
        dv += tl.dot(tl.trans(p.to(input_dtype)), do)
        dp = tl.dot(do, tl.trans(v))
        ds = p * (dp - delta[:, None])
        dk += tl.dot(tl.trans(ds.to(input_dtype)), q)

    dk *= sm_scale
    dk_ptrs = DK + offs_n[:, None] * stride_dkn + offs_k[None, :] * stride_dkk
    dv_ptrs = DV + offs_n[:, None] * stride_dvn + offs_k[None, :] * stride_dvk
    if DIVISIBLE_N:
        tl.store(dk_ptrs, dk.to(input_dtype))
        tl.store(dv_ptrs, dv.to(input_dtype))
    else:
        tl.store(dk_ptrs, dk.to(input_dtype), mask=mask_n[:, None])
        tl.store(dv_ptrs, dv.to(input_dtype), mask=mask_n[:, None])


@triton.jit
def _bwd_q_kernel(
    Q, K, V, sm_scale, DO, DQ, L, D,
    stride_qz, stride_qh, stride_qm, stride_qk,
    stride_kz, stride_kh, stride_kn, stride_kk,
    stride_vz, stride_vh, stride_vn, stride_vk,
    stride_doz, stride_doh, stride_dom, stride_dok,
    stride_dqz, stride_dqh, stride_dqm, stride_dqk,
    H, M, N, P_SEQ,
    BLOCK_M: tl.constexpr, BLOCK_DMODEL: tl.constexpr, BLOCK_N: tl.constexpr,
    CAUSAL: tl.constexpr, DIVISIBLE_M: tl.constexpr, DIVISIBLE_N: tl.constexpr,
):  # fmt: skip
    input_dtype = Q.dtype.element_ty
    start_m = tl.program_id(0)
    off_h = tl.program_id(1)
    off_z = tl.program_id(2)
    log2e: tl.constexpr = 1.4426950408889634
    qk_scale = sm_scale * log2e
    Q += off_z * stride_qz + off_h * stride_qh
    K += off_z * stride_kz + off_h * stride_kh
    V += off_z * stride_vz + off_h * stride_vh
    DO += off_z * stride_doz + off_h * stride_doh
    DQ += off_z * stride_dqz + off_h * stride_dqh
    D += (off_z * H + off_h) * M
    L += (off_z * H + off_h) * M

    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n_base = tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_DMODEL)
    mask_m = offs_m < M
    q_ptrs = Q + offs_m[:, None] * stride_qm + offs_k[None, :] * stride_qk
    do_ptrs = DO + offs_m[:, None] * stride_dom + offs_k[None, :] * stride_dok
    if DIVISIBLE_M:
        q = tl.load(q_ptrs)
        do = tl.load(do_ptrs)
        delta = tl.load(D + offs_m)
        log_norm = tl.load(L + offs_m)
    else:
        q = tl.load(q_ptrs, mask=mask_m[:, None])
        do = tl.load(do_ptrs, mask=mask_m[:, None])
        delta = tl.load(D + offs_m, mask=mask_m)
        log_norm = tl.load(L + offs_m, mask=mask_m)
    dq = tl.zeros([BLOCK_M, BLOCK_DMODEL], dtype=tl.float32)
    hi = tl.minimum(N, P_SEQ + (start_m + 1) * BLOCK_M) if CAUSAL else N
    for start_n in range(0, hi, BLOCK_N):
        offs_n = start_n + offs_n_base
        mask_n = offs_n < N
        k_ptrs = K + offs_n[:, None] * stride_kn + offs_k[None, :] * stride_kk
        v_ptrs = V + offs_n[:, None] * stride_vn + offs_k[None, :] * stride_vk
        if DIVISIBLE_N:
            k = tl.load(k_ptrs)
            v = tl.load(v_ptrs)
        else:
            k = tl.load(k_ptrs, mask=mask_n[:, None])
            v = tl.load(v_ptrs, mask=mask_n[:, None])
        s = tl.dot(q, tl.trans(k))
        p = tl.math.exp2(s * qk_scale - log_norm[:, None] * log2e)
        dp = tl.dot(do.to(input_dtype), tl.trans(v))
        ds = p * (dp - delta[:, None])
        if not DIVISIBLE_N:
            ds = tl.where(mask_n[None, :], ds, 0.0)
        if CAUSAL:
            ds = tl.where((P_SEQ + offs_m[:, None]) >= offs_n[None, :], ds, 0.0)
        dq += tl.dot(ds.to(input_dtype), k)

    dq *= sm_scale
    dq_ptrs = DQ + offs_m[:, None] * stride_dqm + offs_k[None, :] * stride_dqk
    if DIVISIBLE_M:
        tl.store(dq_ptrs, dq.to(input_dtype))
    else:
        tl.store(dq_ptrs, dq.to(input_dtype), mask=mask_m[:, None])
