"""Buggy (Triton): a FlashAttention-2 prefill kernel for [seq_len, num_heads, head_dim]
tensors (lyj20071013/Triton-FlashAttention, prefill/flash_attention_v2.py), written after it
with the bug it ships: the launcher passes q.stride(1), q.stride(0) as the kernel's
(row stride, head stride), the seq and head strides swapped, and the kernel steps along q's
features by the head stride (k's and v's by 1). So every program reads q, k and v at the
wrong places, and, for any input with more than one feature, outside the tensors: under
Triton's interpreter the memory guard stops each call ("reads ... elements outside the
tensors it was handed"), and `selfattn check` gives exit status 2, having found no shape the
kernel runs on. Its other conventions: fixed BLOCK_M = 128, BLOCK_N = 64; 1/sqrt(head_dim)
computed in the kernel; an online softmax over key blocks, divided once at the end;
`is_causal` as a constexpr; the output allocated by the launcher (empty_like(q)).

after: lyj20071013/Triton-FlashAttention prefill/flash_attention_v2.py
commit: 4fc7890e2e1bc44e0bbb2642add9d2bf5b6471ce
licence: none found in the repository; the case restates its computation, not its code
target: call_flash_attention_v2
expected: error
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _prefill(
    Q, K, V, Out, seq_len, D: tl.constexpr, sq_m, sq_h, sk_m, sk_h, sv_m, sv_h, so_m, so_h,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, IS_CAUSAL: tl.constexpr,
):  # fmt: skip
    head, block = tl.program_id(0), tl.program_id(1)
    rows = block * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    feats = tl.arange(0, D)
    row_ok = rows[:, None] < seq_len
    q = tl.load(Q + head * sq_h + rows[:, None] * sq_m + feats[None, :] * sq_h, mask=row_ok)
    run_max = tl.full((BLOCK_M,), float("-inf"), dtype=tl.float32)
    run_sum = tl.zeros((BLOCK_M,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, D), dtype=tl.float32)
    for start in range(0, (seq_len + BLOCK_M - 1) // BLOCK_N * BLOCK_N, BLOCK_N):
        keys = start + cols
        key_ok = keys[:, None] < seq_len
        k = tl.load(K + head * sk_h + keys[:, None] * sk_m + feats[None, :], mask=key_ok, other=0.0)
        v = tl.load(V + head * sv_h + keys[:, None] * sv_m + feats[None, :], mask=key_ok, other=0.0)
        s = tl.dot(q.to(tl.float32), tl.trans(k.to(tl.float32))) / tl.sqrt(D * 1.0)
        if IS_CAUSAL:
            s = tl.where(rows[:, None] >= keys[None, :], s, float("-inf"))
        new_max = tl.maximum(tl.max(s, 1), run_max)
        rescale = tl.exp(run_max - new_max)
        p = tl.exp(s - new_max[:, None])
        run_sum = rescale * run_sum + tl.sum(p, 1)
        acc = acc * rescale[:, None] + tl.dot(p, v.to(tl.float32))
        run_max = new_max
    out = acc / run_sum[:, None]
    tl.store(
        Out + head * so_h + rows[:, None] * so_m + feats[None, :],
        out.to(Out.dtype.element_ty),
        mask=row_ok,
    )


def call_flash_attention_v2(q, k, v, is_causal=False):
    assert q.dim() == 3, "expected [seq_len, num_heads, head_dim]"
    seq_len, heads, d = q.shape
    o = torch.empty_like(q)
    grid = (heads, triton.cdiv(seq_len, 128))
    _prefill[grid](
        q, k, v, o, seq_len, d,
        q.stride(1), q.stride(0), k.stride(1), k.stride(0),  # the bug: (row, head) swapped
        v.stride(1), v.stride(0), o.stride(1), o.stride(0),
        BLOCK_M=128, BLOCK_N=64, IS_CAUSAL=is_causal,
    )  # fmt: skip
    return o
