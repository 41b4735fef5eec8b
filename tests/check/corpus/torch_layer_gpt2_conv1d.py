"""Buggy (torch): a GPT-2-style layer whose maps are Conv1D (weights stored as (in, out), as
in Hugging Face's GPT-2), returning (output, weights). Its causal buffer is built with
diagonal=1, so each position also sees the next one."""

import torch
from torch import nn


class Conv1D(nn.Module):
    def __init__(self, nf: int, nx: int):
        super().__init__()
        self.nf = nf
        self.weight = nn.Parameter(torch.randn(nx, nf) * 0.3)
        self.bias = nn.Parameter(torch.randn(nf) * 0.1)

    def forward(self, x):
        return torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight).view(
            *x.shape[:-1], self.nf
        )


class GPT2Attention(nn.Module):
    def __init__(self, embed_dim: int = 12, num_heads: int = 2, max_positions: int = 32):
        super().__init__()
        self.embed_dim, self.num_heads = embed_dim, num_heads
        self.head_dim = embed_dim // num_heads
        self.c_attn = Conv1D(3 * embed_dim, embed_dim)
        self.c_proj = Conv1D(embed_dim, embed_dim)
        ones = torch.ones((max_positions, max_positions), dtype=torch.bool)
        self.register_buffer("bias", torch.tril(ones, diagonal=1).view(1, 1, max_positions, -1))

    def _split_heads(self, t):
        return t.view(*t.shape[:-1], self.num_heads, self.head_dim).permute(0, 2, 1, 3)

    def forward(self, hidden_states):
        query, key, value = self.c_attn(hidden_states).split(self.embed_dim, dim=2)
        query, key, value = (self._split_heads(t) for t in (query, key, value))
        attn_weights = query @ key.transpose(-1, -2) / value.size(-1) ** 0.5
        n = query.size(-2)
        causal_mask = self.bias[:, :, :n, :n]
        lowest = torch.finfo(attn_weights.dtype).min
        attn_weights = torch.where(causal_mask, attn_weights, torch.tensor(lowest))
        attn_weights = attn_weights.softmax(dim=-1)
        out = (attn_weights @ value).permute(0, 2, 1, 3).reshape(*hidden_states.shape)
        return self.c_proj(out), attn_weights


torch.manual_seed(0)
gpt2 = GPT2Attention()
