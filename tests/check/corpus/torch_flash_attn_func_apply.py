"""Correct (torch, custom backward): the calling convention of flash-attention's Triton
kernel, in torch: `flash_attn_func = FlashAttnFunc.apply` itself, not a function around it,
whose forward(ctx, q, k, v, bias=None, causal=False, softmax_scale=None) takes (batch, seqlen,
nheads, headdim) fp16 or bf16 tensors, keeps the log-sum-exp of each row and recomputes the
weights from it in the backward (delta = rowsum(o * do) first). Our own code.

torch's `apply` hands no keyword argument to such a forward: `flash_attn_func(q, k, v,
causal=True)` raises "forward() missing required argument: 'bias'", which the check met on
the real file before it passed a Function's arguments by position (bias as None).

after: Dao-AILab/flash-attention flash_attn/flash_attn_triton.py
commit: 0251105a2fb19d2957484b7f023cd8c115286ced
licence: BSD-3-Clause
target: flash_attn_func
expected: ok
"""

import math

import torch


def _scores(q, k, bias, causal, scale):
    s = torch.einsum("bqhd,bkhd->bhqk", q.float(), k.float()) * scale
    if bias is not None:
        s = s + bias.float()
    if causal:
        n, m = s.shape[-2:]
        s = s.masked_fill(torch.ones(n, m, dtype=torch.bool).triu(m - n + 1), float("-inf"))
    return s


class FlashAttnFunc(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, bias=None, causal=False, softmax_scale=None):
        assert q.dtype in (torch.float16, torch.bfloat16), "fp16 and bf16 only"
        scale = softmax_scale or 1.0 / math.sqrt(q.shape[-1])
        s = _scores(q, k, bias, causal, scale)
        lse = torch.logsumexp(s, dim=-1)
        o = torch.einsum("bhqk,bkhd->bqhd", torch.exp(s - lse[..., None]), v.float()).to(q.dtype)
        ctx.save_for_backward(q, k, v, o, lse, bias)
        ctx.causal, ctx.scale = causal, scale
        return o

    @staticmethod
    def backward(ctx, do):
        q, k, v, o, lse, bias = ctx.saved_tensors
        p = torch.exp(_scores(q, k, bias, ctx.causal, ctx.scale) - lse[..., None])
        do32 = do.float()
        delta = (do32 * o.float()).sum(-1).transpose(1, 2)  # (batch, heads, seqlen)
        dv = torch.einsum("bhqk,bqhd->bkhd", p, do32)
        dp = torch.einsum("bqhd,bkhd->bhqk", do32, v.float())
        ds = p * (dp - delta[..., None]) * ctx.scale
        dq = torch.einsum("bhqk,bkhd->bqhd", ds, k.float())
        dk = torch.einsum("bhqk,bqhd->bkhd", ds, q.float())
        return dq.to(q.dtype), dk.to(k.dtype), dv.to(v.dtype), None, None, None


flash_attn_func = FlashAttnFunc.apply
