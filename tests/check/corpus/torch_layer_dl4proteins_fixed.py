"""Correct (torch): torch_layer_dl4proteins_scale_by_width.py scaled by the head size, as
Graylab/DL4Proteins-notebooks#12 asks.

after: Graylab/DL4Proteins-notebooks notebooks/WS04_LMsForShakespeareAndProteins.ipynb
commit: 051ba8f57267206ae86d27bc6fbabc61fb2af24b
licence: no licence file in the original repository (style followed, code ours)
target: attn
expected: ok
"""

import torch
from torch import nn
from torch.nn import functional as F

n_embd = 64
block_size = 32


class Head(nn.Module):
    def __init__(self, head_size):
        super().__init__()
        self.key = nn.Linear(n_embd, head_size, bias=False)
        self.query = nn.Linear(n_embd, head_size, bias=False)
        self.value = nn.Linear(n_embd, head_size, bias=False)
        self.register_buffer("tril", torch.tril(torch.ones(block_size, block_size)))

    def forward(self, x):
        _, T, _ = x.shape
        k = self.key(x)
        q = self.query(x)
        wei = q @ k.transpose(-2, -1) * k.size(-1) ** -0.5
        wei = wei.masked_fill(self.tril[:T, :T] == 0, float("-inf"))
        wei = F.softmax(wei, dim=-1)
        return wei @ self.value(x)


class MultiHeadAttention(nn.Module):
    def __init__(self, num_heads, head_size):
        super().__init__()
        self.heads = nn.ModuleList([Head(head_size) for _ in range(num_heads)])
        self.proj = nn.Linear(n_embd, n_embd)

    def forward(self, x):
        return self.proj(torch.cat([h(x) for h in self.heads], dim=-1))


torch.manual_seed(0)
attn = MultiHeadAttention(4, 16)
