"""Buggy (torch, backward): a bidirectional layer with separate q, k, v maps (timm / ViT
style) that computes the values under `torch.no_grad()`, copied from an inference path that
cached them. The forward is right; `to_v.weight` gets no gradient.

Expected: forward ok, backward `backward-no-gradient`."""

import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim: int = 16, heads: int = 2):
        super().__init__()
        self.heads = heads
        self.scale = (dim // heads) ** -0.5
        self.to_q = nn.Linear(dim, dim, bias=False)
        self.to_k = nn.Linear(dim, dim, bias=False)
        self.to_v = nn.Linear(dim, dim, bias=False)
        self.to_out = nn.Linear(dim, dim)

    def forward(self, x):
        b, n, c = x.shape
        q, k = self.to_q(x), self.to_k(x)
        with torch.no_grad():  # the bug: no graph from the output to to_v
            v = self.to_v(x)
        q, k, v = (t.view(b, n, self.heads, -1).transpose(1, 2) for t in (q, k, v))
        attn = (q @ k.transpose(-2, -1) * self.scale).softmax(dim=-1)
        return self.to_out((attn @ v).transpose(1, 2).reshape(b, n, c))


torch.manual_seed(0)
attn = Attention()
