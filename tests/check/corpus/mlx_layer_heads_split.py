"""Buggy (MLX): an attention layer in mlx-lm's style (`q_proj` ... `o_proj`, 4 heads of 8,
MLX's fused attention) whose heads are split as (B, heads, L, head_dim) straight from
(B, L, C), a reshape with no transpose: each "head" then holds pieces of several positions.
Read by name and checked by effect with mx arrays, it is named heads-split-wrong. Before, the
layer path crashed on it ('Attention' object has no attribute 'named_children'). Skipped
without mlx."""

import mlx.core as mx
import mlx.nn as nn


class Attention(nn.Module):
    def __init__(self, dims=32, num_heads=4, bias=False):
        super().__init__()
        self.num_heads = num_heads
        self.scale = (dims // num_heads) ** -0.5
        self.q_proj = nn.Linear(dims, dims, bias=bias)
        self.k_proj = nn.Linear(dims, dims, bias=bias)
        self.v_proj = nn.Linear(dims, dims, bias=bias)
        self.o_proj = nn.Linear(dims, dims, bias=bias)

    def __call__(self, x, mask=None):
        B, L, D = x.shape
        q, k, v = self.q_proj(x), self.k_proj(x), self.v_proj(x)
        # the slip: (B, L, D) read as (B, heads, L, head_dim) without moving the heads forward
        q, k, v = (t.reshape(B, self.num_heads, L, -1) for t in (q, k, v))
        out = mx.fast.scaled_dot_product_attention(q, k, v, scale=self.scale, mask=mask)
        return self.o_proj(out.transpose(0, 2, 1, 3).reshape(B, L, D))


mx.random.seed(0)
attn = Attention()
