"""Correct (torch): a layer in Hugging Face's eager style. `is_causal` is True, but the layer
applies only the `attention_mask` it is given, added to the scores: the model around it builds
the causal mask. Heads are counted by `num_attention_heads`; it returns (output, weights)."""

import torch
from torch import nn


class SelfAttention(nn.Module):
    def __init__(self, hidden_size: int = 16, num_attention_heads: int = 4):
        super().__init__()
        self.num_attention_heads = num_attention_heads
        self.head_dim = hidden_size // num_attention_heads
        self.scaling = self.head_dim**-0.5
        self.is_causal = True
        self.q_proj = nn.Linear(hidden_size, hidden_size)
        self.k_proj = nn.Linear(hidden_size, hidden_size)
        self.v_proj = nn.Linear(hidden_size, hidden_size)
        self.o_proj = nn.Linear(hidden_size, hidden_size)

    def forward(self, hidden_states, attention_mask=None):
        input_shape = hidden_states.shape[:-1]
        hidden_shape = (*input_shape, -1, self.head_dim)
        q, k, v = (
            proj(hidden_states).view(hidden_shape).transpose(1, 2)
            for proj in (self.q_proj, self.k_proj, self.v_proj)
        )
        attn_weights = torch.matmul(q, k.transpose(2, 3)) * self.scaling
        if attention_mask is not None:
            attn_weights = attn_weights + attention_mask
        attn_weights = nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(q.dtype)
        attn_output = torch.matmul(attn_weights, v).transpose(1, 2).reshape(*input_shape, -1)
        return self.o_proj(attn_output), attn_weights


torch.manual_seed(0)
attn = SelfAttention()
