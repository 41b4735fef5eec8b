"""Correct: a causal self-attention layer (its class says so) that leaves the causal mask to
the model around it, which hands it in as an additive `future_bias` (0 or -inf), a name that
says nothing of a mask. Where the argument goes is read from the run: handed zeros, it is
added to the scores before the softmax, so the causal mask is given there. Before: no mask
argument was known, the layer saw the future, and it was reported as causal-leak."""

import math

import torch
from torch import nn


class CausalSelfAttention(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.to_qkv = nn.Linear(width, 3 * width)
        self.to_out = nn.Linear(width, width)

    def forward(self, x, future_bias=None):
        b, n, c = x.shape
        q, k, v = self.to_qkv(x).chunk(3, dim=-1)
        q, k, v = (t.view(b, n, self.heads, -1).transpose(1, 2) for t in (q, k, v))
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if future_bias is not None:
            scores = scores + future_bias
        out = scores.softmax(dim=-1) @ v
        return self.to_out(out.transpose(1, 2).reshape(b, n, c))


torch.manual_seed(0)
attn = CausalSelfAttention(32, 4)
