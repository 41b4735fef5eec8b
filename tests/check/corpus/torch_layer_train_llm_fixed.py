"""Correct (torch): torch_layer_train_llm_scale_by_embedding.py scaled by 1/sqrt(head_size).

after: FareedKhan-dev/train-llm-from-scratch src/models/attention.py
commit: a5304d9f6c9b41685c27728528d31b93fcf1632f
licence: no licence file in the original repository (style followed, code ours)
target: attn
expected: ok
"""

import math

import torch
from torch import nn
from torch.nn import functional as F


class Head(nn.Module):
    def __init__(self, head_size, n_embed, context_length):
        super().__init__()
        self.key = nn.Linear(n_embed, head_size, bias=False)
        self.query = nn.Linear(n_embed, head_size, bias=False)
        self.value = nn.Linear(n_embed, head_size, bias=False)
        self.register_buffer("tril", torch.tril(torch.ones(context_length, context_length)))

    def forward(self, x):
        _, T, _ = x.shape
        k, q = self.key(x), self.query(x)
        attn_weights = q @ k.transpose(-2, -1) / math.sqrt(self.key.out_features)
        attn_weights = attn_weights.masked_fill(self.tril[:T, :T] == 0, float("-inf"))
        attn_weights = F.softmax(attn_weights, dim=-1)
        return attn_weights @ self.value(x)


class MultiHeadAttention(nn.Module):
    def __init__(self, n_head, n_embed, context_length):
        super().__init__()
        self.heads = nn.ModuleList(
            [Head(n_embed // n_head, n_embed, context_length) for _ in range(n_head)]
        )
        self.proj = nn.Linear(n_embed, n_embed)

    def forward(self, x):
        return self.proj(torch.cat([h(x) for h in self.heads], dim=-1))


torch.manual_seed(0)
attn = MultiHeadAttention(4, 32, 64)
