"""Correct (torch, custom backward): ring attention as an autograd.Function, in the style of
picotron's context parallelism: (batch, heads, seqlen, d) tensors split along the sequence
over the ranks of a ring; each rank keeps its own queries and, step by step, meets every
rank's keys and values as they travel round the ring. Each step's block output and its
log-sum-exp are merged into the running ones with a sigmoid and a log-sigmoid (no running
max), causal skips the steps whose keys are all in the rank's future and masks the diagonal
block only (step 0). The backward makes each block's weights again from the merged
log-sum-exp, takes D = rowsum(dO * O) of the merged output, and sends each key block's dk and
dv on round the ring to the rank that owns it. `sm_scale` has no default (the caller passes
it) and `is_causal` is positional, as in picotron's `ring_attention(q, k, v, sm_scale,
is_causal)`.

The ring is simulated in one process (WORLD ranks, the sends are list lookups), so it runs
on a CPU; a sequence shorter than the ring leaves the last ranks empty, as torch.chunk does.
picotron#37 (https://github.com/huggingface/picotron/issues/37) calls its D term a mistake
(rowsum(dO * O) where rowsum(dP * P) was meant); the two are equal, since O = P V and
dP = dO V^T, and the check finds the gradients right.

after: huggingface/picotron picotron/context_parallel/context_parallel.py
commit: 7998208b307592fe3370f3ba0a3a43d3c9e62f57
licence: Apache-2.0 (the original)
target: ring_attention
expected: ok
"""

import torch
import torch.nn.functional as F

WORLD = 4  # ranks in the simulated ring


def ring_attention(q, k, v, sm_scale, is_causal):
    return RingAttentionFunc.apply(q, k, v, sm_scale, is_causal)


def _shards(x):
    """Each rank's piece of the sequence (torch.chunk: the last ranks may hold none)."""
    pieces = list(torch.chunk(x, WORLD, dim=-2))
    return pieces + [x[..., :0, :]] * (WORLD - len(pieces))


def _visits(rank, is_causal):
    """The (step, source rank) pairs whose keys and values rank `rank` attends to."""
    for step in range(WORLD):
        if not is_causal or step <= rank:
            yield step, (rank - step) % WORLD


class RingAttentionFunc(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, sm_scale, is_causal):
        qs, ks, vs = _shards(q), _shards(k), _shards(v)
        outs, lses = [], []
        for rank in range(WORLD):
            out, lse = None, None
            for step, src in _visits(rank, is_causal):
                if qs[rank].shape[-2] == 0 or ks[src].shape[-2] == 0:
                    continue
                block_out, block_lse = block_forward(
                    qs[rank], ks[src], vs[src], sm_scale, is_causal and step == 0
                )
                out, lse = update_out_and_lse(out, lse, block_out, block_lse)
            if out is None:  # a rank with no queries
                out, lse = qs[rank].float(), qs[rank].new_zeros((*qs[rank].shape[:-1], 1))
            outs.append(out.to(q.dtype))
            lses.append(lse.squeeze(-1))
        out = torch.cat(outs, dim=-2)
        ctx.save_for_backward(q, k, v, out, torch.cat(lses, dim=-1))
        ctx.sm_scale, ctx.is_causal = sm_scale, is_causal
        return out

    @staticmethod
    def backward(ctx, dout):
        q, k, v, out, lse = ctx.saved_tensors
        qs, ks, vs = _shards(q), _shards(k), _shards(v)
        outs, dos, lses = _shards(out), _shards(dout), _shards(lse[..., None])
        dqs = [torch.zeros_like(x, dtype=torch.float32) for x in qs]
        dks = [torch.zeros_like(x, dtype=torch.float32) for x in ks]
        dvs = [torch.zeros_like(x, dtype=torch.float32) for x in vs]
        for rank in range(WORLD):
            for step, src in _visits(rank, ctx.is_causal):
                if qs[rank].shape[-2] == 0 or ks[src].shape[-2] == 0:
                    continue
                block_dq, block_dk, block_dv = block_backward(
                    dos[rank], qs[rank], ks[src], vs[src], outs[rank],
                    lses[rank].squeeze(-1), ctx.sm_scale, ctx.is_causal and step == 0,
                )  # fmt: skip
                dqs[rank] += block_dq
                dks[src] += block_dk  # sent on round the ring to the rank that owns them
                dvs[src] += block_dv
        dq, dk, dv = (torch.cat(xs, dim=-2) for xs in (dqs, dks, dvs))
        return dq.to(q.dtype), dk.to(k.dtype), dv.to(v.dtype), None, None


def block_forward(q, k, v, sm_scale, is_causal):
    """One step's attention of a query block to a key block, and its log-sum-exp."""
    s = torch.matmul(q, k.transpose(-2, -1)) * sm_scale
    if is_causal:
        s = s.masked_fill(_future(q, k), float("-inf"))
    s_max = s.max(dim=-1, keepdim=True).values
    e = torch.exp(s - s_max)
    total = e.sum(dim=-1, keepdim=True)
    return torch.matmul(e / total, v), (torch.log(total) + s_max).squeeze(-1)


def block_backward(dout, q, k, v, out, lse, sm_scale, is_causal):
    """One step's share of dq, dk, dv, its weights made again from the merged lse."""
    s = torch.matmul(q, k.transpose(-2, -1)) * sm_scale
    if is_causal:
        s = s.masked_fill(_future(q, k), float("-inf"))
    p = torch.exp(s - lse[..., None])
    dv = torch.matmul(p.transpose(-2, -1), dout)
    dp = torch.matmul(dout, v.transpose(-2, -1))
    delta = torch.sum(dout * out, dim=-1, keepdim=True)  # = rowsum(dp * p) over every key
    ds = p * (dp - delta)
    dq = torch.matmul(ds, k) * sm_scale
    dk = torch.matmul(ds.transpose(-2, -1), q) * sm_scale
    return dq, dk, dv


def _future(q, k):
    return torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool).triu(1)


def update_out_and_lse(out, lse, block_out, block_lse):
    """Merge a block's output and log-sum-exp into the running ones without a max:
    out - sigmoid(block_lse - lse) * (out - block_out) is the weighted mean of the two."""
    block_out, block_lse = block_out.to(torch.float32), block_lse[..., None]
    if out is None:
        return block_out, block_lse
    out = out - F.sigmoid(block_lse - lse) * (out - block_out)
    lse = lse - F.logsigmoid(lse - block_lse)
    return out, lse
