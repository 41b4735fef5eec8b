"""Correct (torch): the multi-head attention of a from-scratch "Attention Is All You Need"
(hyunwoongko/transformer): called as layer(q, k, v, mask=None), maps `w_q`, `w_k`, `w_v`,
`n_head` heads, and the heads joined by `w_concat`; scaled dot-product attention in a module
of its own, which fills masked scores with -10000 (in float32, e^-10000 is 0: no leak). No
name the checker held before says where the maps are: they are read from the run.

repository: hyunwoongko/transformer
path: models/layers/multi_head_attention.py, models/layers/scale_dot_product_attention.py
commit: 8f7aaa19d37b088c156db0512868127ba9bf1a0f
licence: none found in the repository; the case restates its computation, not its code
target: attn
expected: ok
"""

import math

from torch import nn


class ScaleDotProductAttention(nn.Module):
    """Its own module, softmax as an nn.Softmax over the last axis; returns (out, weights)."""

    def __init__(self):
        super().__init__()
        self.softmax = nn.Softmax(dim=-1)

    def forward(self, q, k, v, mask=None):
        d_tensor = k.size(-1)
        score = q @ k.transpose(2, 3) / math.sqrt(d_tensor)
        if mask is not None:
            score = score.masked_fill(mask == 0, -10000)
        weights = self.softmax(score)
        return weights @ v, weights


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model=16, n_head=4):
        super().__init__()
        self.n_head = n_head
        self.attention = ScaleDotProductAttention()
        self.w_q, self.w_k, self.w_v = (nn.Linear(d_model, d_model) for _ in range(3))
        self.w_concat = nn.Linear(d_model, d_model)

    def forward(self, q, k, v, mask=None):
        heads = [self.split(w(t)) for w, t in ((self.w_q, q), (self.w_k, k), (self.w_v, v))]
        out, _ = self.attention(*heads, mask=mask)
        return self.w_concat(self.concat(out))

    def split(self, t):  # (batch, length, d_model) -> (batch, head, length, d_tensor)
        b, n, _ = t.size()
        return t.view(b, n, self.n_head, -1).transpose(1, 2)

    def concat(self, t):  # (batch, head, length, d_tensor) -> (batch, length, d_model)
        b, h, n, d = t.size()
        return t.transpose(1, 2).contiguous().view(b, n, h * d)


attn = MultiHeadAttention()
