"""Buggy (torch): a causal layer with separate q, k, v, o maps that splits heads with
view(B, heads, T, head_dim) straight from (B, T, C), without the transpose: each "head" then
holds pieces of several positions, so outputs mix tokens, the future included."""

import torch
from torch import nn
from torch.nn import functional as F


class CausalSelfAttention(nn.Module):
    def __init__(self, hidden_size: int = 12, num_heads: int = 3):
        super().__init__()
        self.num_heads, self.head_dim = num_heads, hidden_size // num_heads
        self.q_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.k_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.v_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.o_proj = nn.Linear(hidden_size, hidden_size, bias=False)

    def forward(self, hidden_states):
        B, T, C = hidden_states.shape
        q, k, v = (
            proj(hidden_states).view(B, self.num_heads, T, self.head_dim)
            for proj in (self.q_proj, self.k_proj, self.v_proj)
        )
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.o_proj(y.transpose(1, 2).reshape(B, T, C))


torch.manual_seed(0)
attn = CausalSelfAttention()
