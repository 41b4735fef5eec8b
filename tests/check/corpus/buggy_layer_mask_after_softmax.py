"""Buggy (torch), planted: a decoder layer whose causal mask comes from the model around it, as
gpt-fast's Attention takes it (`mask`, boolean, True where a query may look), applied after
the softmax: the future's weights are zeroed but the rows are not normalised again, so each
query's weights sum to less than one. Without a mask the layer is right, which is how it is
called on its own; only the mask the model hands it shows the bug.

Written in the style of gpt-fast's Attention (one fused map `wqkv` and `wo`, no biases; heads
as (batch, heads, n, head_dim); `mask` required, boolean, (1, 1, n, n)): planted, not shipped.
The check hands the empty mask argument a causal mask in each form until one is applied."""

import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim, n_head):
        super().__init__()
        self.n_head, self.head_dim = n_head, dim // n_head
        self.wqkv = nn.Linear(dim, 3 * dim, bias=False)
        self.wo = nn.Linear(dim, dim, bias=False)

    def forward(self, x, mask):
        b, n, dim = x.shape
        q, k, v = self.wqkv(x).split(dim, dim=-1)
        q, k, v = (t.view(b, n, self.n_head, self.head_dim).transpose(1, 2) for t in (q, k, v))
        weights = torch.softmax(q @ k.transpose(-2, -1) * self.head_dim**-0.5, dim=-1)
        if mask is not None:
            weights = weights.masked_fill(~mask, 0.0)  # the bug: after the softmax
        return self.wo((weights @ v).transpose(1, 2).reshape(b, n, dim))


torch.manual_seed(0)
attn = Attention(32, 4)
