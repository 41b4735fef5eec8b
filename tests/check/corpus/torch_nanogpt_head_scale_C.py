"""Buggy (torch): a nanoGPT-style head with a built-in causal mask, scaled by C**-0.5 with C
the model width (32), not the head size."""

import torch
from torch import nn
from torch.nn import functional as F


class Head(nn.Module):
    def __init__(self, n_embd: int = 32, block_size: int = 64):
        super().__init__()
        self.n_embd = n_embd
        self.register_buffer("tril", torch.tril(torch.ones(block_size, block_size)))

    def forward(self, q, k, v):
        T = q.shape[-2]
        C = self.n_embd
        wei = q @ k.transpose(-2, -1) * C**-0.5  # (B, T, T)
        wei = wei.masked_fill(self.tril[:T, :T] == 0, float("-inf"))
        wei = F.softmax(wei, dim=-1)
        return wei @ v


head = Head()
