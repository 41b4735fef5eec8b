"""nn.MultiheadAttention, itself and in a thin causal wrapper. `mha` (x as (n, batch, C), the
default) and `mha_batch_first` are correct encoder layers. The wrappers hold the causal mask
as a buffer and pass it as `attn_mask`: `causal` passes `~tril` (True = hidden, as the module
reads a boolean mask) and is correct; `causal_tril` passes `tril` itself, which hides the past
and keeps the future."""

import torch
from torch import nn


class CausalSelfAttention(nn.Module):
    def __init__(self, embed_dim: int = 16, num_heads: int = 4, block_size: int = 32, keep=False):
        super().__init__()
        self.attn = nn.MultiheadAttention(embed_dim, num_heads, batch_first=True)
        tril = torch.tril(torch.ones(block_size, block_size, dtype=torch.bool))
        self.register_buffer("mask", tril if keep else ~tril)

    def forward(self, x):
        T = x.size(1)
        out, _ = self.attn(x, x, x, attn_mask=self.mask[:T, :T], need_weights=False)
        return out


torch.manual_seed(0)
mha = nn.MultiheadAttention(16, 4)
mha_batch_first = nn.MultiheadAttention(16, 2, batch_first=True)
causal = CausalSelfAttention()
causal_tril = CausalSelfAttention(keep=True)
