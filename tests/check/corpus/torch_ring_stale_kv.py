"""Buggy (torch, custom backward), a shipped bug: ring attention as diffusers'
`TemplatedRingAttention` was before huggingface/diffusers#14274, which fixed
https://github.com/huggingface/diffusers/issues/14265 ("Ring attention backward uses stale
iteration-0 KV from ctx.saved_tensors"). The forward gathers every rank's keys and values and
merges each step's block output and log-sum-exp with a sigmoid; the attention op saves its
tensors only at step 0 (`_save_ctx=i == 0`). The backward walks the ring again, but the op's
backward reads q, k, v, out and lse from `ctx.saved_tensors`: every step's gradient is the
local block's, made with the local keys and values and step 0's block output and lse, not the
merged ones. The forward is right; dq, dk and dv are not.

In our own code, after the original's structure: (batch, seq, heads, dim) tensors, a forward
op and a backward op that share `ctx`, the ring simulated in one process (RING ranks, the
all-gather a list), `scale` None meaning 1/sqrt(dim), no causal flag or mask (the original's
`_templated_context_parallel_attention` refuses both), and the sequence split in equal parts
(the original's all-gather needs them, so lengths that are not a multiple of 4 are refused).

after: huggingface/diffusers src/diffusers/models/attention_dispatch.py
commit: 002e7ef841b1542236c40637d58b52fc2a465ed5
licence: Apache-2.0 (the original)
target: ring_attention
expected: buggy backward-wrong-output
layout: bnhd
"""

import torch
import torch.nn.functional as F

RING = 4  # ring_degree


def ring_attention(query, key, value, scale=None):
    if query.shape[1] % RING or key.shape[1] % RING:
        raise ValueError(f"the sequence length must be divisible by the ring degree {RING}")
    return RingAttention.apply(query, key, value, scale)


class _RankCtx:
    """One rank's autograd ctx in the simulated ring: what its attention op saved."""

    def save_for_backward(self, *tensors):
        self.saved_tensors = tensors


def _forward_op(ctx, query, key, value, scale, _save_ctx=True):
    """One block's attention, (batch, seq, heads, dim), and its lse (batch, seq, heads)."""
    q, k, v = (x.transpose(1, 2) for x in (query, key, value))
    s = q @ k.transpose(-2, -1) * (scale if scale is not None else q.shape[-1] ** -0.5)
    lse = torch.logsumexp(s, dim=-1)
    out = (torch.exp(s - lse[..., None]) @ v).transpose(1, 2)
    if _save_ctx:
        ctx.save_for_backward(query, key, value, out, lse.transpose(1, 2))
        ctx.scale = scale
    return out, lse.transpose(1, 2)


def _backward_op(ctx, grad_out):
    """The gradients of the block whose tensors `ctx` saved."""
    query, key, value, out, lse = ctx.saved_tensors
    q, k, v, o, do = (x.transpose(1, 2) for x in (query, key, value, out, grad_out))
    scale = ctx.scale if ctx.scale is not None else q.shape[-1] ** -0.5
    p = torch.exp(q @ k.transpose(-2, -1) * scale - lse.transpose(1, 2)[..., None])
    dv = p.transpose(-2, -1) @ do
    ds = p * (do @ v.transpose(-2, -1) - (do * o).sum(-1, keepdim=True))
    dq, dk = ds @ k * scale, ds.transpose(-2, -1) @ q * scale
    return dq.transpose(1, 2), dk.transpose(1, 2), dv.transpose(1, 2)


class RingAttention(torch.autograd.Function):
    @staticmethod
    def forward(ctx, query, key, value, scale):
        queries = query.chunk(RING, dim=1)
        kv_buffer = list(zip(key.chunk(RING, dim=1), value.chunk(RING, dim=1), strict=True))
        ctx.ranks = [_RankCtx() for _ in range(RING)]
        outs = []
        for rank, rank_ctx in enumerate(ctx.ranks):
            prev_out = prev_lse = None
            for i in range(RING):
                k, v = kv_buffer[(rank + i) % RING]  # step 0: the rank's own keys
                out, lse = _forward_op(rank_ctx, queries[rank], k, v, scale, _save_ctx=i == 0)
                out, lse = out.to(torch.float32), lse.to(torch.float32)[..., None]
                if prev_out is not None:
                    out = prev_out - F.sigmoid(lse - prev_lse) * (prev_out - out)
                    lse = prev_lse - F.logsigmoid(prev_lse - lse)
                prev_out, prev_lse = out, lse
            outs.append(out.to(query.dtype))
        return torch.cat(outs, dim=1)

    @staticmethod
    def backward(ctx, grad_out):
        grads_out = grad_out.chunk(RING, dim=1)
        grad_query, grad_key, grad_value = [], [], []
        for rank_ctx in ctx.ranks:
            query, key, value, *_ = rank_ctx.saved_tensors
            grad_query.append(torch.zeros_like(query, dtype=torch.float32))
            grad_key.append(torch.zeros_like(key, dtype=torch.float32))
            grad_value.append(torch.zeros_like(value, dtype=torch.float32))
        for rank, rank_ctx in enumerate(ctx.ranks):
            for i in range(RING):
                owner = (rank + i) % RING  # whose keys step i met in the forward
                # the bug: the op's backward reads rank_ctx.saved_tensors, step 0's block
                grad_query_op, grad_key_op, grad_value_op = _backward_op(rank_ctx, grads_out[rank])
                grad_query[rank] += grad_query_op
                grad_key[owner] += grad_key_op  # sent round the ring to the owner
                grad_value[owner] += grad_value_op
        dtype = grad_out.dtype
        return (*(torch.cat(g, dim=1).to(dtype) for g in (grad_query, grad_key, grad_value)), None)
