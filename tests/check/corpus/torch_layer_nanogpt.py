"""Correct (torch): nanoGPT's CausalSelfAttention, a layer with its own projections, called on
hidden states x of shape (B, T, C): one fused `c_attn` map to q, k, v, `n_head` heads, the
output map `c_proj`. `manual` masks with a registered tril buffer; `flash` calls
F.scaled_dot_product_attention(is_causal=True) and has no buffer, so only its class name says
it is causal."""

import math

import torch
from torch import nn
from torch.nn import functional as F


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd: int = 12, n_head: int = 3, block_size: int = 32, flash=False):
        super().__init__()
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.attn_dropout = nn.Dropout(0.1)
        self.n_head, self.n_embd, self.flash = n_head, n_embd, flash
        if not flash:
            tril = torch.tril(torch.ones(block_size, block_size))
            self.register_buffer("bias", tril.view(1, 1, block_size, block_size))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        if self.flash:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
            att = self.attn_dropout(F.softmax(att, dim=-1))
            y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


torch.manual_seed(0)
manual = CausalSelfAttention()
flash = CausalSelfAttention(flash=True)
