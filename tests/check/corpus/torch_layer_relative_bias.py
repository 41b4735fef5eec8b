"""Correct (torch): a layer that adds a learned bias by relative position to its scores, as T5
does (`relative_attention_bias`, an Embedding of one bias per head for each bucket of
distance), here with the scores scaled by 1/sqrt(d), which T5 leaves out. The check holds the
bias at 0 and compares with attention without positions; before, it read wrong-output."""

import torch
from torch import nn


class RelativeBiasAttention(nn.Module):
    def __init__(self, d_model: int = 32, n_heads: int = 4, buckets: int = 8):
        super().__init__()
        self.n_heads, self.key_value_proj_dim, self.buckets = n_heads, d_model // n_heads, buckets
        self.q, self.k, self.v, self.o = (nn.Linear(d_model, d_model, bias=False) for _ in range(4))
        self.relative_attention_bias = nn.Embedding(buckets, n_heads)

    def bias(self, n: int) -> torch.Tensor:
        distance = torch.arange(n)[None, :] - torch.arange(n)[:, None]
        bucket = distance.clamp(-(self.buckets // 2), self.buckets // 2 - 1) + self.buckets // 2
        return self.relative_attention_bias(bucket).permute(2, 0, 1)[None]  # (1, heads, n, n)

    def forward(self, hidden_states, mask=None):
        b, n, _ = hidden_states.shape
        q, k, v = (
            m(hidden_states).view(b, n, self.n_heads, -1).transpose(1, 2)
            for m in (self.q, self.k, self.v)
        )
        scores = q @ k.transpose(-1, -2) / self.key_value_proj_dim**0.5 + self.bias(n)
        scores = scores if mask is None else scores + mask
        out = torch.softmax(scores, dim=-1) @ v
        return self.o(out.transpose(1, 2).reshape(b, n, -1))


torch.manual_seed(0)
attn = RelativeBiasAttention()
with torch.no_grad():  # a trained bias, not the embedding's first draw
    attn.relative_attention_bias.weight.normal_(0.0, 2.0)
