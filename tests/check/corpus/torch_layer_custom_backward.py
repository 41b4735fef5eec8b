"""Correct (torch, backward): a layer whose attention is a custom torch.autograd.Function with
a hand-written backward, the pattern of PyTorch's autograd onboarding lab (pytorch/pytorch
pull requests #60877, #62124: `class Attn(torch.autograd.Function)`, checked with gradcheck)
wrapped in q, k, v and output projections. The backward saves the weights P and applies
dS = P * (dP - rowsum(dP * P)), scaled, for dq and dk.

Expected: forward ok, backward ok (the weights' gradients match the float64 forward's)."""

import torch
from torch import nn


class Attend(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v):
        scale = q.shape[-1] ** -0.5
        p = (q @ k.transpose(-2, -1) * scale).softmax(-1)
        ctx.save_for_backward(q, k, v, p)
        ctx.scale = scale
        return p @ v

    @staticmethod
    def backward(ctx, do):
        q, k, v, p = ctx.saved_tensors
        dv = p.transpose(-2, -1) @ do
        dp = do @ v.transpose(-2, -1)
        ds = p * (dp - (dp * p).sum(-1, keepdim=True))
        dq = ds @ k * ctx.scale
        dk = ds.transpose(-2, -1) @ q * ctx.scale
        return dq, dk, dv


class SelfAttention(nn.Module):
    def __init__(self, dim: int = 16, num_heads: int = 4):
        super().__init__()
        self.num_heads = num_heads
        self.q_proj = nn.Linear(dim, dim)
        self.k_proj = nn.Linear(dim, dim)
        self.v_proj = nn.Linear(dim, dim)
        self.out_proj = nn.Linear(dim, dim)

    def forward(self, x):
        b, n, c = x.shape
        q, k, v = (
            p(x).view(b, n, self.num_heads, -1).transpose(1, 2)
            for p in (self.q_proj, self.k_proj, self.v_proj)
        )
        return self.out_proj(Attend.apply(q, k, v).transpose(1, 2).reshape(b, n, c))


torch.manual_seed(0)
attn = SelfAttention()
