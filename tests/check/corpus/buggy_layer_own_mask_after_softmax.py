"""Buggy (torch), planted: a decoder layer that builds its own causal mask in each forward (no
buffer, no flag, no mask argument, a class name that does not say causal) and applies it to the
weights after the softmax, without renormalising: the future still enters each row's
denominator and the kept weights sum to less than one. Nothing marks it causal, so it is
checked without a mask, and the output is the past's share of a full softmax: named
causal-mask-after-softmax (wrong-output before). Written in nanoGPT's layout (`c_attn`,
`c_proj`, heads as (B, nh, T, hs))."""

import torch
from torch import nn
from torch.nn import functional as F


class SelfAttention(nn.Module):
    def __init__(self, n_embd=32, n_head=4):
        super().__init__()
        self.n_head = n_head
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = (
            t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            for t in self.c_attn(x).split(C, dim=2)
        )
        att = F.softmax((q @ k.transpose(-2, -1)) / k.size(-1) ** 0.5, dim=-1)
        att = att.masked_fill(torch.ones(T, T).tril() == 0, 0.0)
        return self.c_proj((att @ v).transpose(1, 2).reshape(B, T, C))


torch.manual_seed(0)
attn = SelfAttention()
