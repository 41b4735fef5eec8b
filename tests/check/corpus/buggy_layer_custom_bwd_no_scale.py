"""Buggy (torch, backward): the custom-backward layer of torch_layer_custom_backward.py with
the scale left out of dq and dk in its backward (the forward scales the scores). In a layer the
checker reads the weights' gradients first; where they are off, it runs the layer's own
autograd.Function on the q, k, v the layer gave it and names the kernel-level bug.

Expected: forward ok, backward `backward-scale-missing`: the gap in the weights' gradients is
traced to the layer's autograd.Function, whose dq and dk are the known bug's."""

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
        dq = ds @ k  # the bug: no ctx.scale
        dk = ds.transpose(-2, -1) @ q
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
