"""Buggy (torch, custom backward, planted): the twin of torch_flash_buckets.py whose backward
masks the future whatever `causal` says (the tiles before the diagonal skipped, the diagonal
masked), as Triton's fused-attention tutorial did in 2024 (triton-lang/triton issues #4541 and
#5660: "the backward kernel is ignoring the ctx.causal argument entirely"). Its forward is right
with and without the mask, and its causal gradients are right.

Correct twin: FlashAttention in plain PyTorch as an autograd.Function, in
the style of lucidrains' memory-efficient-attention-pytorch: (batch, heads, n, d) tensors split
into query and key buckets, row sums and row maxes updated bucket by bucket in the forward
(Algorithm 2 of the FlashAttention paper), the log-sum-exp saved, and a backward (Algorithm 4)
that recomputes each block's weights as exp(s - lse) and adds its share of dq, dk, dv. The
scale is d ** -0.5, computed inside; causal is a positional argument of `apply`, called as the
original's module does: FlashAttentionFunction.apply(q, k, v, mask, causal, q_bucket, k_bucket).

after: lucidrains/memory-efficient-attention-pytorch memory_efficient_attention_pytorch/flash_attention.py
commit: 2c0fc02b546ac9361d163b3802b03ab92a8f8730
licence: MIT (the original)
target: flash_attention
expected: buggy backward-causal-always
"""

import torch
from torch.autograd.function import Function

EPSILON = 1e-6


class FlashAttentionFunction(Function):
    @staticmethod
    @torch.no_grad()
    def forward(ctx, q, k, v, mask, causal, q_bucket_size, k_bucket_size):
        max_neg_value = -torch.finfo(q.dtype).max
        o = torch.zeros_like(q)
        row_sums_all = torch.zeros((*q.shape[:-1], 1), dtype=q.dtype)
        row_maxes_all = torch.full((*q.shape[:-1], 1), max_neg_value, dtype=q.dtype)
        scale = q.shape[-1] ** -0.5
        for qi, start in enumerate(range(0, q.shape[-2], q_bucket_size)):
            qc = q[..., start : start + q_bucket_size, :]
            oc = o[..., start : start + q_bucket_size, :]
            row_sums = row_sums_all[..., start : start + q_bucket_size, :]
            row_maxes = row_maxes_all[..., start : start + q_bucket_size, :]
            for kstart in range(0, k.shape[-2], k_bucket_size):
                kc = k[..., kstart : kstart + k_bucket_size, :]
                vc = v[..., kstart : kstart + k_bucket_size, :]
                weights = torch.einsum("...id,...jd->...ij", qc, kc) * scale
                if causal and start < kstart + k_bucket_size - 1:
                    blocked = torch.ones(weights.shape[-2:], dtype=torch.bool).triu(
                        start - kstart + 1
                    )
                    weights.masked_fill_(blocked, max_neg_value)
                block_maxes = weights.amax(dim=-1, keepdim=True)
                exp_weights = torch.exp(weights - block_maxes)
                block_sums = exp_weights.sum(dim=-1, keepdim=True).clamp(min=EPSILON)
                new_maxes = torch.maximum(block_maxes, row_maxes)
                exp_values = torch.einsum("...ij,...jd->...id", exp_weights, vc)
                old_factor = torch.exp(row_maxes - new_maxes)
                block_factor = torch.exp(block_maxes - new_maxes)
                new_sums = old_factor * row_sums + block_factor * block_sums
                oc.mul_((row_sums / new_sums) * old_factor).add_(
                    (block_factor / new_sums) * exp_values
                )
                row_maxes.copy_(new_maxes)
                row_sums.copy_(new_sums)
            del qi
        lse = row_sums_all.log() + row_maxes_all
        ctx.args = (causal, scale, q_bucket_size, k_bucket_size)
        ctx.save_for_backward(q, k, v, o, lse)
        return o

    @staticmethod
    @torch.no_grad()
    def backward(ctx, do):
        _causal, scale, q_bucket_size, k_bucket_size = ctx.args
        q, k, v, o, lse = ctx.saved_tensors
        max_neg_value = -torch.finfo(q.dtype).max
        dq, dk, dv = torch.zeros_like(q), torch.zeros_like(k), torch.zeros_like(v)
        for start in range(0, q.shape[-2], q_bucket_size):
            rows = slice(start, start + q_bucket_size)
            qc, oc, doc, lsec = (
                q[..., rows, :],
                o[..., rows, :],
                do[..., rows, :],
                lse[..., rows, :],
            )
            for kstart in range(0, k.shape[-2], k_bucket_size):
                cols = slice(kstart, kstart + k_bucket_size)
                kc, vc = k[..., cols, :], v[..., cols, :]
                weights = torch.einsum("...id,...jd->...ij", qc, kc) * scale
                if start < kstart + k_bucket_size - 1:  # the bug: causal or not
                    blocked = torch.ones(weights.shape[-2:], dtype=torch.bool).triu(
                        start - kstart + 1
                    )
                    weights.masked_fill_(blocked, max_neg_value)
                p = torch.exp(weights - lsec)
                dv[..., cols, :] += torch.einsum("...ij,...id->...jd", p, doc)
                dp = torch.einsum("...id,...jd->...ij", doc, vc)
                D = (doc * oc).sum(dim=-1, keepdim=True)
                ds = p * scale * (dp - D)
                dq[..., rows, :] += torch.einsum("...ij,...jd->...id", ds, kc)
                dk[..., cols, :] += torch.einsum("...ij,...id->...jd", ds, qc)
        return dq, dk, dv, None, None, None, None


def flash_attention(q, k, v, causal=False, q_bucket_size=4, k_bucket_size=8):
    """q, k, v: (batch, heads, n, d)."""
    return FlashAttentionFunction.apply(q, k, v, None, causal, q_bucket_size, k_bucket_size)
