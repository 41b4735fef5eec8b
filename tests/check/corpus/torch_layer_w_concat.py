"""Correct (torch): the multi-head attention of a from-scratch "Attention Is All You Need"
(hyunwoongko/transformer), written after it: called as layer(q, k, v, mask=None), maps
`w_q`, `w_k`, `w_v`, `n_head` heads, the heads joined by `w_concat`; the scaled dot-product
attention a module of its own, filling scores where mask == 0 with -10000 (e^-10000 is 0 in
float32: nothing leaks) and softmaxing with an nn.Softmax. No name the checker held before
says where the maps are: they are read from the run.

after: hyunwoongko/transformer models/layers/multi_head_attention.py
after: hyunwoongko/transformer models/layers/scale_dot_product_attention.py
commit: 8f7aaa19d37b088c156db0512868127ba9bf1a0f
licence: none found in the repository; the case restates its computation, not its code
target: attn
expected: ok
"""

import math

from torch import nn


class ScaleDotProductAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.softmax = nn.Softmax(dim=-1)

    def forward(self, q, k, v, mask=None):
        score = q @ k.transpose(2, 3) / math.sqrt(k.size(-1))
        if mask is not None:
            score = score.masked_fill(mask == 0, -10000)
        weights = self.softmax(score)
        return weights @ v, weights


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model=16, n_head=4):
        super().__init__()
        self.n_head = n_head
        self.attention = ScaleDotProductAttention()
        self.w_q, self.w_k, self.w_v, self.w_concat = (
            nn.Linear(d_model, d_model) for _ in range(4)
        )

    def forward(self, q, k, v, mask=None):
        b, n, c = q.shape

        def split(t):
            return t.view(b, -1, self.n_head, c // self.n_head).transpose(1, 2)

        out, _ = self.attention(
            split(self.w_q(q)), split(self.w_k(k)), split(self.w_v(v)), mask=mask
        )
        return self.w_concat(out.transpose(1, 2).reshape(b, n, c))


attn = MultiHeadAttention()
