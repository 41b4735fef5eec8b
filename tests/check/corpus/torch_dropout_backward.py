"""Correct (torch): memory-efficient attention with dropout as a custom autograd.Function. The
forward saves the dropout mask it drew; the backward reuses it and recomputes the weights from
q and k instead of keeping them.
"""

import torch


class DropoutAttention(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, dropout_p):
        scale = q.shape[-1] ** -0.5
        p = torch.softmax(q @ k.transpose(-2, -1) * scale, dim=-1)
        keep = torch.rand_like(p) >= dropout_p
        out = (p * keep / (1 - dropout_p)) @ v
        ctx.save_for_backward(q, k, v, keep)
        ctx.dropout_p = dropout_p
        return out

    @staticmethod
    def backward(ctx, do):
        q, k, v, keep = ctx.saved_tensors
        scale = q.shape[-1] ** -0.5
        p = torch.softmax(q @ k.transpose(-2, -1) * scale, dim=-1)
        dropped = keep / (1 - ctx.dropout_p)
        dv = (p * dropped).transpose(-2, -1) @ do
        dp = (do @ v.transpose(-2, -1)) * dropped
        ds = p * (dp - (p * dp).sum(-1, keepdim=True))
        return ds @ k * scale, ds.transpose(-2, -1) @ q * scale, dv, None


def attention(q, k, v, dropout_p=0.0):
    return DropoutAttention.apply(q, k, v, dropout_p)
