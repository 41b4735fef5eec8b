"""Buggy (torch): FuxiCTR's MultiHeadSelfAttention (the AutoInt layer), written after it as it
shipped before abd5182 ("Fix split heads issue in multi-head attention (#30)", July 2022): the
heads are split by viewing the (B, n, C) maps as (B * heads, n, head_dim) straight away, and
joined by viewing the result as (B, n, C), so each head holds pieces of several tokens. Its
conventions: three maps `W_q`, `W_k`, `W_v` without bias, no map out; bmm over the folded batch;
scores divided by sqrt(head_dim) only when `use_scale`; an optional residual (`W_res` when the
widths differ), an optional LayerNorm, and a ReLU on the output.

after: reczoo/FuxiCTR fuxictr/pytorch/layers/attention.py
commit: abdea65267b6e2e4769efb27feb831dce56ccdd3
licence: Apache-2.0
target: attn
expected: buggy heads-split-wrong
"""

import torch
from torch import nn


class MultiHeadSelfAttention(nn.Module):
    def __init__(
        self, input_dim, attention_dim=None, num_heads=1, dropout_rate=0.0, use_residual=True,
        use_scale=False, layer_norm=False,
    ):  # fmt: skip
        super().__init__()
        self.attention_dim = attention_dim or input_dim // num_heads
        self.output_dim, self.num_heads = num_heads * self.attention_dim, num_heads
        self.use_residual = use_residual
        self.scale = self.attention_dim**0.5 if use_scale else None
        self.W_q, self.W_k, self.W_v = (
            nn.Linear(input_dim, self.output_dim, bias=False) for _ in range(3)
        )
        wide = input_dim != self.output_dim
        self.W_res = nn.Linear(self.output_dim, input_dim, bias=False) if wide else None
        self.dropout = nn.Dropout(dropout_rate) if dropout_rate > 0 else None
        self.layer_norm = nn.LayerNorm(self.output_dim) if layer_norm else None

    def forward(self, X):
        b = X.size(0)
        # the shipped bug: (B, n, C) viewed as (B * heads, n, head_dim), no transpose
        q, k, v = (m(X).view(b * self.num_heads, -1, self.attention_dim) for m in self.qkv())
        scores = torch.bmm(q, k.transpose(1, 2))
        scores = scores / self.scale if self.scale else scores
        weights = scores.softmax(dim=2)
        weights = self.dropout(weights) if self.dropout is not None else weights
        out = torch.bmm(weights, v).view(b, -1, self.output_dim)  # and joined the same way
        out = self.W_res(out) if self.W_res is not None else out
        out = out + X if self.use_residual else out
        out = self.layer_norm(out) if self.layer_norm is not None else out
        return out.relu()

    def qkv(self):
        return self.W_q, self.W_k, self.W_v


torch.manual_seed(0)
attn = MultiHeadSelfAttention(32, num_heads=4, use_residual=False, use_scale=True)
