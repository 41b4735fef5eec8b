"""Buggy (torch): anyGPT's CausalSelfAttention as it shipped before 7a9ed68 ("Fixed q,k,v bug in
self attention block", #10, May 2023), written after it: nanoGPT's layer (`c_attn` split in
three, `c_proj`, SDPA with is_causal) without the lines that split q, k and v into heads. SDPA
then runs one head of size C over (B, T, C), and `y.transpose(1, 2).contiguous().view(B, T, C)`
meant to join the heads turns (B, T, C) into (B, C, T) and reads it back as (B, T, C): each
output row gathers channels of every position, the later ones included (causal-leak).

after: any-LABS/anyGPT src/anyGPT/models/modules.py
commit: d7453166376913ca6e442b2c9db6a410f601d27b
licence: MIT
target: attn
expected: buggy causal-leak
"""

from types import SimpleNamespace

import torch
import torch.nn.functional as F
from torch import nn


class CausalSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.c_attn = nn.Linear(config.embedding_size, 3 * config.embedding_size, bias=config.bias)
        self.c_proj = nn.Linear(config.embedding_size, config.embedding_size, bias=config.bias)
        self.resid_dropout = nn.Dropout(config.dropout)
        self.num_heads, self.embedding_size = config.num_heads, config.embedding_size
        self.dropout = config.dropout

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.embedding_size, dim=2)  # the shipped bug: no heads
        drop = self.dropout if self.training else 0.0
        y = F.scaled_dot_product_attention(q, k, v, dropout_p=drop, is_causal=True)
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.resid_dropout(self.c_proj(y))


torch.manual_seed(0)
attn = CausalSelfAttention(SimpleNamespace(embedding_size=32, num_heads=4, bias=True, dropout=0.1))
