"""Buggy (torch): the GPT-2-style module of torch_gpt2_half_inside.py with its buffer applied
as a multiply. Masked scores become 0, not -inf, so every query still weighs the future;
the float16 rounding inside must not hide that, nor turn it into a normalisation bug."""

import math

import torch
from torch import nn


class CausalSelfAttention(nn.Module):
    def __init__(self, n_ctx: int = 64):
        super().__init__()
        keep = torch.tril(torch.ones(n_ctx, n_ctx))
        self.register_buffer("bias", keep.view(1, 1, n_ctx, n_ctx), persistent=False)

    def forward(self, query, key, value):
        dtype, t = query.dtype, query.size(-2)
        q, k, v = (x.half() for x in (query, key, value))
        scores = (q @ k.transpose(-1, -2)).float() / math.sqrt(q.size(-1))
        scores = scores * self.bias[:, :, :t, :t]  # BUG: a kept 0 is exp(0) = 1 of weight
        weights = scores.softmax(dim=-1).half()
        return (weights @ v).to(dtype)


attn = CausalSelfAttention()
