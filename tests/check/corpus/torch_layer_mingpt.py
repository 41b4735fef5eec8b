"""Correct (torch): minGPT's CausalSelfAttention (karpathy/minGPT, mingpt/model.py) as it was
with separate `key`, `query`, `value` maps (applied in that order), `n_head` heads, `proj`
out, dropout on the weights and on the output, and the causal mask a registered buffer named
`mask`, ones below the diagonal, filled with -inf where 0. Its forward, decorated with
torch.cuda.amp's autocast there (a no-op on CPU), takes (x, layer_past=None).

repository: karpathy/minGPT
path: mingpt/model.py
commit: 08c08d8db0475a1cea334a25bf98dee51972180c
licence: MIT
target: attn
expected: ok
"""

import math

import torch
import torch.nn as nn
from torch.nn import functional as F


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd=12, n_head=3, block_size=16, attn_pdrop=0.1, resid_pdrop=0.1):
        super().__init__()
        assert n_embd % n_head == 0
        self.key = nn.Linear(n_embd, n_embd)
        self.query = nn.Linear(n_embd, n_embd)
        self.value = nn.Linear(n_embd, n_embd)
        self.attn_drop = nn.Dropout(attn_pdrop)
        self.resid_drop = nn.Dropout(resid_pdrop)
        self.proj = nn.Linear(n_embd, n_embd)
        tril = torch.tril(torch.ones(block_size, block_size))
        self.register_buffer("mask", tril.view(1, 1, block_size, block_size))
        self.n_head = n_head

    def forward(self, x, layer_past=None):
        B, T, C = x.size()
        k = self.key(x).view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
        q = self.query(x).view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = self.value(x).view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.mask[:, :, :T, :T] == 0, float("-inf"))
        att = self.attn_drop(F.softmax(att, dim=-1))
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.resid_drop(self.proj(y))


attn = CausalSelfAttention()
