"""A layer written as T5's is: maps `q`, `k`, `v` and `o` without bias, and dropout as a
probability, `self.dropout`, handed to F.dropout with `training=self.training` (no
nn.Dropout to find), the module left in training mode. `scaled` divides the scores by
sqrt(head size) and is correct; `unscaled` leaves the scale out, as T5 does on purpose."""

import torch
from torch import nn
from torch.nn import functional as F


class Attention(nn.Module):
    def __init__(self, d_model=32, d_kv=8, n_heads=4, dropout_rate=0.1, scaled=True):
        super().__init__()
        inner = n_heads * d_kv
        self.n_heads, self.key_value_proj_dim = n_heads, d_kv
        self.q = nn.Linear(d_model, inner, bias=False)
        self.k = nn.Linear(d_model, inner, bias=False)
        self.v = nn.Linear(d_model, inner, bias=False)
        self.o = nn.Linear(inner, d_model, bias=False)
        self.dropout = dropout_rate
        self.scaled = scaled

    def forward(self, hidden_states, mask=None):
        b, n, _ = hidden_states.shape

        def shape(t):
            return t.view(b, n, self.n_heads, self.key_value_proj_dim).transpose(1, 2)

        q, k, v = (
            shape(self.q(hidden_states)),
            shape(self.k(hidden_states)),
            shape(self.v(hidden_states)),
        )
        scores = q @ k.transpose(3, 2)
        if self.scaled:
            scores = scores / self.key_value_proj_dim**0.5
        if mask is not None:
            scores = scores + mask
        weights = F.dropout(
            F.softmax(scores.float(), dim=-1).type_as(scores),
            p=self.dropout,
            training=self.training,
        )
        return self.o((weights @ v).transpose(1, 2).reshape(b, n, -1))


torch.manual_seed(0)
scaled = Attention()
unscaled = Attention(scaled=False)
