"""Buggy (torch), shipped: LLMs-from-scratch's MHAPyTorchScaledDotProduct (one `qkv` map, `proj`,
the `mask` buffer triu(diagonal=1), True = future) handed that mask to
F.scaled_dot_product_attention, which reads True = may attend: the future kept, the past hidden
(rasbt/LLMs-from-scratch#1061, fixed by PR #1062).

after: rasbt/LLMs-from-scratch ch03/02_bonus_efficient-multihead-attention/mha-implementations.ipynb
commit: c0f564ee874f6418e9e6e60f0603cd46d4f20b1d
licence: Apache-2.0
target: attn
expected: buggy causal-mask-wrong-triangle
"""

import torch
from torch import nn


class MHAPyTorchScaledDotProduct(nn.Module):
    def __init__(self, d_in, d_out, num_heads, context_length, dropout=0.0, qkv_bias=False):
        super().__init__()
        self.num_heads = num_heads
        self.context_length = context_length
        self.head_dim = d_out // num_heads
        self.d_out = d_out
        self.qkv = nn.Linear(d_in, 3 * d_out, bias=qkv_bias)
        self.proj = nn.Linear(d_out, d_out)
        self.dropout = dropout
        self.register_buffer(
            "mask", torch.triu(torch.ones(context_length, context_length), diagonal=1).bool()
        )

    def forward(self, x):
        batch_size, num_tokens, _ = x.shape
        qkv = self.qkv(x).view(batch_size, num_tokens, 3, self.num_heads, self.head_dim)
        queries, keys, values = qkv.permute(2, 0, 3, 1, 4)
        use_dropout = 0.0 if not self.training else self.dropout
        attn_mask = self.mask[:num_tokens, :num_tokens]  # the shipped bug
        context_vec = nn.functional.scaled_dot_product_attention(
            queries, keys, values, attn_mask=attn_mask, dropout_p=use_dropout, is_causal=False
        )
        context_vec = (
            context_vec.transpose(1, 2).contiguous().view(batch_size, num_tokens, self.d_out)
        )
        return self.proj(context_vec)


torch.manual_seed(0)
attn = MHAPyTorchScaledDotProduct(32, 32, 4, 64)
