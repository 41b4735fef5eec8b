"""Buggy (Triton), a shipped bug: triton_flag_attention.py's kernel with its backward as
FlagAttention first shipped it, before commit 63735de5d84702766babcc3f8a2cfa983b06a68f
("bugfix: _bwd_preprocess does not handles stride of o & do correctly"; the same fix for
piecewise attention is https://github.com/flagos-ai/FlagAttention/pull/1). Its first step,
delta = rowsum(o * do), walks o and do as B * H * M rows of D_HEAD numbers, as if both were
contiguous (batch, heads, seqlen, headdim) tensors. The backward makes do contiguous, but o
was made by torch.empty_like(q) and keeps q's strides: when q comes from a projection as
x.view(b, n, h, d).transpose(1, 2), the rows of o and do no longer pair up, delta is wrong
and so are dq and dk. On one head, or on contiguous inputs, the gradients are right; so are
the forward and everything a forward test sees. A length that is not a multiple of the block
reads past the end of o (no mask): the memory guard refuses it.

Its forward and its dk, dv and dq kernels are the fixed file's, imported from it; only the
first step of the backward is as it was.

after: FlagOpen/FlagAttention src/flag_attn/flash.py
commit: 20077a593ad47cfcc422254cb98869bc91724bef
licence: Apache-2.0 (the original)
target: attention
expected: buggy backward-wrong-output
"""

import sys
from pathlib import Path

import torch
import triton
import triton.language as tl

sys.path.insert(0, str(Path(__file__).parent))
from triton_flag_attention import (
    FlashAttention,
    _bwd_kv_kernel,
    _bwd_q_kernel,
    get_config,
)


class FlashAttentionFirstRelease(FlashAttention):
    @staticmethod
    def backward(ctx, do, *ignored):
        q, k, v, o, L = ctx.saved_tensors
        B, H, M, D = q.shape
        N = k.shape[2]
        P_SEQ = N - M
        with torch.cuda.device_of(q):
            BLOCK_M, BLOCK_N, num_stages, num_warps = get_config(M, N, D, ctx.causal)
            divisible = dict(DIVISIBLE_M=M % BLOCK_M == 0, DIVISIBLE_N=N % BLOCK_N == 0)
            do = do.contiguous()
            delta = torch.empty_like(L)
            _bwd_preprocess[(triton.cdiv(M, BLOCK_M) * B * H, 1, 1)](
                o, do, delta, BLOCK_M=BLOCK_M, D_HEAD=D
            )
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
    return FlashAttentionFirstRelease.apply(q, k, v, causal, sm_scale, return_log_normalizer)


@triton.jit
def _bwd_preprocess(Out, DO, Delta, BLOCK_M: tl.constexpr, D_HEAD: tl.constexpr):
    # rows of B * H * M, each D_HEAD long: right only if o and do are both contiguous
    off_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    off_n = tl.arange(0, D_HEAD)
    o = tl.load(Out + off_m[:, None] * D_HEAD + off_n[None, :]).to(tl.float32)
    do = tl.load(DO + off_m[:, None] * D_HEAD + off_n[None, :]).to(tl.float32)
    tl.store(Delta + off_m, tl.sum(o * do, axis=1))
