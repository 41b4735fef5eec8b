"""Heads kept as modules of their own, as the lecture builds multi-head attention: a
ModuleList of one-head layers (`key`, `query`, `value` of head size 8, a tril buffer) whose
outputs are joined and mapped out by `proj`. `mha` scales each head by its own size and is
correct; `mha_by_width` scales by C**-0.5, the model width, in every head."""

import torch
from torch import nn
from torch.nn import functional as F


class Head(nn.Module):
    def __init__(self, n_embd, head_size, block_size, by_width):
        super().__init__()
        self.key = nn.Linear(n_embd, head_size, bias=False)
        self.query = nn.Linear(n_embd, head_size, bias=False)
        self.value = nn.Linear(n_embd, head_size, bias=False)
        self.register_buffer("tril", torch.tril(torch.ones(block_size, block_size)))
        self.by_width = by_width

    def forward(self, x):
        _, T, C = x.shape
        q, k = self.query(x), self.key(x)
        scale = C**-0.5 if self.by_width else k.shape[-1] ** -0.5
        wei = (q @ k.transpose(-2, -1) * scale).masked_fill(self.tril[:T, :T] == 0, float("-inf"))
        return F.softmax(wei, dim=-1) @ self.value(x)


class MultiHeadAttention(nn.Module):
    def __init__(self, n_embd=32, num_heads=4, block_size=32, by_width=False):
        super().__init__()
        size = n_embd // num_heads
        heads = (Head(n_embd, size, block_size, by_width) for _ in range(num_heads))
        self.heads = nn.ModuleList(heads)
        self.proj = nn.Linear(n_embd, n_embd)
        self.dropout = nn.Dropout(0.1)

    def forward(self, x):
        return self.dropout(self.proj(torch.cat([h(x) for h in self.heads], dim=-1)))


torch.manual_seed(0)
mha = MultiHeadAttention()
mha_by_width = MultiHeadAttention(by_width=True)
