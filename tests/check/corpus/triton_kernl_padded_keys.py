"""Buggy (Triton): kernl's fused attention forward (ELS-RD/kernl), written after it with the
bug it ships: the kernel masks the scores of keys past the end with the key offsets inside
the tile (0 .. BLOCK_N - 1), not the keys' positions. The first tile is masked right; in a
later, partly filled tile the padded keys (loaded as zeros) keep a score of 0 and add
exp(0 - max) to every row's sum, so for n above one tile and not a multiple of it (n = 160
with tiles of 128) the output is too small. The published file says as much beside its Q load
("there is a bug on n_size ... output is wrong") and was archived with it.

Its conventions: called as attention_forward(q, k, v, output, sm_scale, is_causal=False,
attention_mask=None), the output buffer handed in by the caller and returned; (batch, heads,
n, d) float16 or bfloat16 only; tiles of 128 queries and 128 keys; the softmax normalised as
it goes (each tile's weights divided by the running sum, the accumulator rescaled by old sum
over new sum); the causal loop stopping at the diagonal tile; an additive mask broadcast to
the scores. Our own code.

after: ELS-RD/kernl src/kernl/implementations/attention.py
commit: 91e2cd92db44d503874d39a9f6dec42c9f481a8e
licence: Apache-2.0
target: attention_forward
expected: buggy wrong-output
"""

import torch
import triton
import triton.language as tl

TILE = 128


@triton.jit
def _fwd(
    Q, K, V, Mask, Out, sm_scale, heads, m_size, n_size,
    sq_b, sq_h, sq_m, sk_b, sk_h, sk_n, sv_b, sv_h, sv_n, so_b, so_h, so_m,
    sm_b, sm_h, sm_m, sm_n,
    HAS_MASK: tl.constexpr, IS_CAUSAL: tl.constexpr, D: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):  # fmt: skip
    start_m, bh = tl.program_id(0), tl.program_id(1)
    b, h = bh // heads, bh % heads
    rows = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    dims = tl.arange(0, D)
    q = tl.load(
        Q + b * sq_b + h * sq_h + rows[:, None] * sq_m + dims[None, :],
        mask=rows[:, None] < m_size, other=0.0,
    )  # fmt: skip
    run_max = tl.zeros((BLOCK_M,), dtype=tl.float32) - float("inf")
    run_sum = tl.zeros((BLOCK_M,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, D), dtype=tl.float32)
    end = (start_m + 1) * BLOCK_N if IS_CAUSAL else n_size
    for start_n in range(0, end, BLOCK_N):
        keys = start_n + cols
        inside = keys[:, None] < n_size
        k = tl.load(K + b * sk_b + h * sk_h + keys[:, None] * sk_n + dims[None, :], mask=inside)
        s = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        s = tl.where(cols[None, :] < n_size, s, float("-inf"))  # the bug: cols, not keys
        s += tl.dot(q, tl.trans(k)) * sm_scale
        if IS_CAUSAL:
            s += tl.where(rows[:, None] >= keys[None, :], 0.0, float("-inf"))
        if HAS_MASK:
            where = Mask + b * sm_b + h * sm_h + rows[:, None] * sm_m + keys[None, :] * sm_n
            bounds = (rows[:, None] < m_size) & (keys[None, :] < n_size)
            s += tl.load(where, mask=bounds, other=float("-inf"))
        tile_max = tl.max(s, 1)
        e = tl.exp(s - tile_max[:, None])
        new_max = tl.maximum(run_max, tile_max)
        old_part = tl.exp(run_max - new_max) * run_sum
        new_sum = old_part + tl.exp(tile_max - new_max) * tl.sum(e, 1)
        p = e * (tl.exp(tile_max - new_max) / new_sum)[:, None]
        v = tl.load(V + b * sv_b + h * sv_h + keys[:, None] * sv_n + dims[None, :], mask=inside)
        acc = acc * (old_part / new_sum)[:, None] + tl.dot(p.to(v.dtype), v)
        run_max, run_sum = new_max, new_sum
    tl.store(
        Out + b * so_b + h * so_h + rows[:, None] * so_m + dims[None, :], acc,
        mask=rows[:, None] < m_size,
    )  # fmt: skip


class Attention(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, output, sm_scale, is_causal, attention_mask=None):
        assert q.dtype in (torch.float16, torch.bfloat16), "float16 and bfloat16 only"
        assert q.dtype == k.dtype == v.dtype == output.dtype
        batch, heads, m_size, d = q.shape
        n_size = k.shape[2]
        mask = attention_mask
        strides = (0, 0, 0, 0)
        if mask is not None:
            mask = mask.expand(batch, heads, m_size, n_size)
            strides = mask.stride()
        grid = (triton.cdiv(m_size, TILE), batch * heads)
        _fwd[grid](
            q, k, v, mask, output, sm_scale, heads, m_size, n_size,
            *q.stride()[:3], *k.stride()[:3], *v.stride()[:3], *output.stride()[:3], *strides,
            HAS_MASK=mask is not None, IS_CAUSAL=is_causal, D=d, BLOCK_M=TILE, BLOCK_N=TILE,
        )  # fmt: skip
        return output


def attention_forward(q, k, v, output, sm_scale, is_causal=False, attention_mask=None):
    return Attention.apply(q, k, v, output, sm_scale, is_causal, attention_mask)
