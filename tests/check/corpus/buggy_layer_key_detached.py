"""Buggy (torch, backward): a causal self-attention layer in nanoGPT's style whose keys are
detached, `k = self.key(x).detach()`, a line left over from a cache of past keys. The forward
is exactly right; `key.weight` and `key.bias` never get a gradient and stay as initialised.
The same cut graph shipped in paiml/aprender (pull request #2203: "after loss.backward() on a
MultiHeadAttention forward, get_grad(q_proj.weight) was None").

Expected: forward ok, backward `backward-no-gradient`."""

import torch
from torch import nn


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd: int = 16, n_head: int = 4, block_size: int = 32):
        super().__init__()
        self.n_head = n_head
        self.query = nn.Linear(n_embd, n_embd)
        self.key = nn.Linear(n_embd, n_embd)
        self.value = nn.Linear(n_embd, n_embd)
        self.proj = nn.Linear(n_embd, n_embd)
        mask = torch.tril(torch.ones(block_size, block_size))
        self.register_buffer("bias", mask.view(1, 1, block_size, block_size))

    def forward(self, x):
        B, T, C = x.shape
        h = self.n_head
        q = self.query(x).view(B, T, h, C // h).transpose(1, 2)
        k = self.key(x).detach().view(B, T, h, C // h).transpose(1, 2)  # the bug
        v = self.value(x).view(B, T, h, C // h).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (k.size(-1) ** -0.5)
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf")).softmax(-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.proj(y)


torch.manual_seed(0)
attn = CausalSelfAttention()
