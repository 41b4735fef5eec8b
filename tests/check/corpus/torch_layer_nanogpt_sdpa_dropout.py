"""Buggy (torch): nanoGPT's CausalSelfAttention as it shipped before 7399dfe ("dont always
dropout!", karpathy/nanoGPT, April 2023), written after it: with PyTorch 2's fused attention it
calls F.scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=self.dropout,
is_causal=True), and a function has no training mode, so with a dropout above 0 the weights
are dropped in eval mode too. Its conventions: one map `c_attn` split into q, k, v,
(B, nh, T, hs) heads, `c_proj` and a residual dropout module; the config a dataclass.

after: karpathy/nanoGPT model.py
commit: a82b33b525ca9855d705656387698e13eb8e8d4b
licence: MIT
target: attn
expected: buggy random-output
"""

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn


@dataclass
class GPTConfig:
    block_size: int = 1024
    n_head: int = 12
    n_embd: int = 768
    dropout: float = 0.0
    bias: bool = True


class CausalSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd, bias=config.bias)
        self.c_proj = nn.Linear(config.n_embd, config.n_embd, bias=config.bias)
        self.resid_dropout = nn.Dropout(config.dropout)
        self.n_head, self.n_embd, self.dropout = config.n_head, config.n_embd, config.dropout

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = (
            z.view(b, t, self.n_head, c // self.n_head).transpose(1, 2)
            for z in self.c_attn(x).split(self.n_embd, dim=2)
        )
        # the bug: dropout_p does not look at self.training
        y = F.scaled_dot_product_attention(q, k, v, dropout_p=self.dropout, is_causal=True)
        return self.resid_dropout(self.c_proj(y.transpose(1, 2).reshape(b, t, c)))


torch.manual_seed(0)
attn = CausalSelfAttention(GPTConfig(block_size=64, n_head=4, n_embd=32, dropout=0.1))
