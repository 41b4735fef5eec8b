"""Correct (torch): grouped-query attention in LLaMA's style, without the rotary embeddings:
4 query heads share 2 key/value heads (`num_key_value_heads`), and each k, v head is repeated
for its group with repeat_interleave. `tiled` repeats them with `repeat` instead, so the q
heads take the k, v heads in turn: right for weights trained that way, wrong for a checkpoint
trained the other way."""

import torch
from torch import nn
from torch.nn import functional as F


class Attention(nn.Module):
    def __init__(self, hidden_size=16, num_heads=4, num_key_value_heads=2, interleave=True):
        super().__init__()
        self.num_heads, self.head_dim = num_heads, hidden_size // num_heads
        self.num_key_value_groups = num_heads // num_key_value_heads
        self.interleave = interleave
        self.is_causal = True
        self.q_proj = nn.Linear(hidden_size, num_heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(hidden_size, num_key_value_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(hidden_size, num_key_value_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(num_heads * self.head_dim, hidden_size, bias=False)

    def repeat_kv(self, t):
        if self.interleave:
            return t.repeat_interleave(self.num_key_value_groups, dim=1)
        return t.repeat(1, self.num_key_value_groups, 1, 1)

    def forward(self, hidden_states):
        B, T, _ = hidden_states.shape
        q, k, v = (
            proj(hidden_states).view(B, T, -1, self.head_dim).transpose(1, 2)
            for proj in (self.q_proj, self.k_proj, self.v_proj)
        )
        y = F.scaled_dot_product_attention(q, self.repeat_kv(k), self.repeat_kv(v), is_causal=True)
        return self.o_proj(y.transpose(1, 2).reshape(B, T, -1))


torch.manual_seed(0)
attn = Attention()
tiled = Attention(interleave=False)
