"""Correct (torch): a method of CLIP's ResidualAttentionBlock, written after it: the target is
`block.attention`, not the block, which also holds `ln_1`, an MLP and `ln_2`; the method hands
x (n, batch, C) three times to the nn.MultiheadAttention it holds as `attn`, with the causal
mask the block was built with for its text context (here 8 tokens), so it takes that length
only. Exit 2 before: a block's method was read as a model of token ids.

after: openai/CLIP clip/model.py
commit: d05afc436d78f1c48dc0dbf8e5980a9d471f35f6
licence: MIT
target: attn
expected: ok
"""

import torch
from torch import nn


class ResidualAttentionBlock(nn.Module):
    def __init__(self, d_model: int, n_head: int, attn_mask: torch.Tensor | None = None):
        super().__init__()
        self.attn = nn.MultiheadAttention(d_model, n_head)
        self.ln_1 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(
            nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model)
        )
        self.ln_2 = nn.LayerNorm(d_model)
        self.attn_mask = attn_mask

    def attention(self, x: torch.Tensor):
        mask = None if self.attn_mask is None else self.attn_mask.to(dtype=x.dtype)
        return self.attn(x, x, x, need_weights=False, attn_mask=mask)[0]

    def forward(self, x: torch.Tensor):
        x = x + self.attention(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


torch.manual_seed(0)
context = 8
block = ResidualAttentionBlock(32, 4, torch.full((context, context), float("-inf")).triu(1))
attn = block.attention
