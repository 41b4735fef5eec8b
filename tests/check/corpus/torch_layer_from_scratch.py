"""Causal attention as a popular book builds it up: maps named `W_query`, `W_key`, `W_value`,
a float `triu` buffer of ones marking what to hide. `single` is one head; `stacked` is heads
kept in a ModuleList and concatenated, with no map out; `mha` splits the heads with view and
transpose and maps them out through `out_proj`. All three are correct. `mha_joined` joins
the heads with `.contiguous().view(b, n, d_out)` but without moving them back first."""

import torch
from torch import nn


class CausalAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=False)
        self.W_key = nn.Linear(d_in, d_out, bias=False)
        self.W_value = nn.Linear(d_in, d_out, bias=False)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), 1))

    def forward(self, x):
        n = x.shape[1]
        keys, queries, values = self.W_key(x), self.W_query(x), self.W_value(x)
        scores = queries @ keys.transpose(1, 2)
        scores = scores.masked_fill(self.mask.bool()[:n, :n], -torch.inf)
        return torch.softmax(scores / keys.shape[-1] ** 0.5, dim=-1) @ values


class StackedHeads(nn.Module):
    def __init__(self, d_in, d_out, context_length, num_heads):
        super().__init__()
        heads = [CausalAttention(d_in, d_out, context_length) for _ in range(num_heads)]
        self.heads = nn.ModuleList(heads)

    def forward(self, x):
        return torch.cat([head(x) for head in self.heads], dim=-1)


class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, num_heads, heads_back=True):
        super().__init__()
        self.d_out, self.num_heads, self.head_dim = d_out, num_heads, d_out // num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=False)
        self.W_key = nn.Linear(d_in, d_out, bias=False)
        self.W_value = nn.Linear(d_in, d_out, bias=False)
        self.out_proj = nn.Linear(d_out, d_out)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), 1))
        self.heads_back = heads_back

    def forward(self, x):
        b, n, _ = x.shape

        def heads(t):
            return t.view(b, n, self.num_heads, self.head_dim).transpose(1, 2)

        keys, queries, values = heads(self.W_key(x)), heads(self.W_query(x)), heads(self.W_value(x))
        scores = (queries @ keys.transpose(2, 3)).masked_fill(self.mask.bool()[:n, :n], -torch.inf)
        context = torch.softmax(scores / self.head_dim**0.5, dim=-1) @ values
        if self.heads_back:
            context = context.transpose(1, 2)
        return self.out_proj(context.contiguous().view(b, n, self.d_out))


torch.manual_seed(123)
single = CausalAttention(16, 8, 32)
stacked = StackedHeads(16, 4, 32, num_heads=2)
mha = MultiHeadAttention(16, 16, 32, num_heads=4)
mha_joined = MultiHeadAttention(16, 16, 32, num_heads=4, heads_back=False)
