"""Correct (Triton): a prefill kernel after SGLang's (itself after LightLLM's): the sequences of a
batch packed one after another as (tokens, heads, d), each found by its start and length
(`b_start_loc`, `b_seq_len`), the output written into a buffer `o` handed in; grouped k, v
heads (`kv_group_num`); one program per (sequence, head, block of 64 queries); keys past the
sequence's end and, when `is_causal` (the default), keys after the query set to -inf; each
block's weights divided by the running sum as it goes and the accumulator rescaled by old sum
over new. Our own code.

`context_attention_fwd` needs the starts, lengths and a buffer, which no attention check can
make up (exit 2 on the real file); `attention` packs a (batch, n, heads, d) batch the way the
server does and is what is checked.

after: sgl-project/sglang python/sglang/srt/layers/attention/triton_ops/prefill_attention.py
commit: 84877609121dfc743e4aa4979f44e1543bd28fe1
licence: Apache-2.0
target: attention
expected: ok
"""

import torch
import triton
import triton.language as tl

BLOCK = 64


@triton.jit
def _prefill(
    Q, K, V, Out, Starts, Lengths, scale,
    sq_tok, sq_head, sk_tok, sk_head, sv_tok, sv_head, so_tok, so_head,
    GROUP: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BD: tl.constexpr,
    D: tl.constexpr, CAUSAL: tl.constexpr,
):  # fmt: skip
    seq, head, blk = tl.program_id(0), tl.program_id(1), tl.program_id(2)
    kv_head = head // GROUP
    length = tl.load(Lengths + seq)
    start = tl.load(Starts + seq)
    rows = blk * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    dims = tl.arange(0, BD)
    in_d = dims < D
    q = tl.load(
        Q + (start + rows[:, None]) * sq_tok + head * sq_head + dims[None, :],
        mask=(rows[:, None] < length) & in_d[None, :],
        other=0.0,
    )
    top = tl.full([BM], float("-inf"), tl.float32)
    total = tl.zeros([BM], tl.float32)
    acc = tl.zeros([BM, BD], tl.float32)
    stop = tl.minimum((blk + 1) * BM, length) if CAUSAL else length
    stop = tl.where(blk * BM < length, stop, 0)
    for first in range(0, stop, BN):
        keys = first + cols
        k = tl.load(
            K + (start + keys[None, :]) * sk_tok + kv_head * sk_head + dims[:, None],
            mask=(keys[None, :] < length) & in_d[:, None],
            other=0.0,
        )
        s = tl.dot(q, k) * scale
        seen = keys[None, :] < length
        if CAUSAL:
            seen = seen & (rows[:, None] >= keys[None, :])
        s = tl.where(seen, s, float("-inf"))
        block_top = tl.max(s, 1)
        w = tl.exp(s - block_top[:, None])
        new_top = tl.maximum(top, block_top)
        old_part = tl.exp(top - new_top)
        new_part = tl.exp(block_top - new_top)
        new_total = old_part * total + new_part * tl.sum(w, 1)
        w = w * (new_part / new_total)[:, None]
        acc = acc * (total / new_total * old_part)[:, None]
        v = tl.load(
            V + (start + keys[:, None]) * sv_tok + kv_head * sv_head + dims[None, :],
            mask=(keys[:, None] < length) & in_d[None, :],
            other=0.0,
        )
        acc += tl.dot(w.to(v.dtype), v)
        total, top = new_total, new_top
    tl.store(
        Out + (start + rows[:, None]) * so_tok + head * so_head + dims[None, :],
        acc,
        mask=(rows[:, None] < length) & in_d[None, :],
    )


def context_attention_fwd(q, k, v, o, b_start_loc, b_seq_len, max_input_len, is_causal=True):
    d = q.shape[-1]
    grid = (b_seq_len.shape[0], q.shape[1], triton.cdiv(max_input_len, BLOCK))
    _prefill[grid](
        q, k, v, o, b_start_loc, b_seq_len, 1.0 / d**0.5,
        q.stride(0), q.stride(1), k.stride(0), k.stride(1),
        v.stride(0), v.stride(1), o.stride(0), o.stride(1),
        GROUP=q.shape[1] // k.shape[1], BM=BLOCK, BN=BLOCK,
        BD=triton.next_power_of_2(d), D=d, CAUSAL=is_causal,
    )  # fmt: skip


def attention(q, k, v, is_causal=True):
    """(batch, n, heads, d) tensors, packed as the server packs a batch of prompts."""
    b, n, h, d = q.shape
    o = torch.empty(b * n, h, d, dtype=q.dtype)
    starts = torch.arange(b, dtype=torch.int32) * n
    lengths = torch.full((b,), n, dtype=torch.int32)
    packed = [x.reshape(b * n, h, x.shape[-1]) for x in (q, k, v)]
    context_attention_fwd(*packed, o, starts, lengths, n, is_causal)
    return o.view(b, n, h, d)
