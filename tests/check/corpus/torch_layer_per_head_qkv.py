"""Correct (torch): a causal layer in the GPT-NeoX / BLOOM style, whose one `query_key_value`
map is stored per head: its output is viewed as (B, T, heads, 3, head_dim), so each head's
q, k and v sit next to each other rather than all the queries first."""

import torch
from torch import nn
from torch.nn import functional as F


class CausalSelfAttention(nn.Module):
    def __init__(self, hidden_size: int = 16, num_attention_heads: int = 4):
        super().__init__()
        self.num_attention_heads = num_attention_heads
        self.head_size = hidden_size // num_attention_heads
        self.query_key_value = nn.Linear(hidden_size, 3 * hidden_size)
        self.dense = nn.Linear(hidden_size, hidden_size)

    def forward(self, hidden_states):
        B, T, C = hidden_states.shape
        qkv = self.query_key_value(hidden_states)
        qkv = qkv.view(B, T, self.num_attention_heads, 3, self.head_size)
        q, k, v = (qkv[..., i, :].transpose(1, 2) for i in range(3))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.dense(y.transpose(1, 2).reshape(B, T, C))


torch.manual_seed(0)
attn = CausalSelfAttention()
