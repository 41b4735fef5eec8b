"""Correct (torch): DINOv2's MemEffAttention as it runs without xFormers, written after it:
forward(x, attn_bias=None) falls back to its parent Attention, which has one fused map `qkv`
read as (3, B, heads, N, d), multiplies q (not the scores) by head_dim**-0.5, has `num_heads`
heads and `proj` out. An attn_bias without xFormers raises.

after: facebookresearch/dinov2 dinov2/layers/attention.py
commit: 05c66df0cfa837710197d4769158c87e36afad2c
licence: Apache-2.0
target: attn
expected: ok
"""

from torch import nn


class Attention(nn.Module):
    def __init__(
        self, dim, num_heads=8, qkv_bias=False, proj_bias=True, attn_drop=0.0, proj_drop=0.0
    ):
        super().__init__()
        self.num_heads = num_heads
        self.scale = (dim // num_heads) ** -0.5
        self.qkv = nn.Linear(dim, 3 * dim, bias=qkv_bias)
        self.proj = nn.Linear(dim, dim, bias=proj_bias)
        self.attn_drop, self.proj_drop = nn.Dropout(attn_drop), nn.Dropout(proj_drop)

    def forward(self, x):
        b, n, c = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.num_heads, -1).permute(2, 0, 3, 1, 4)
        weights = ((q * self.scale) @ k.transpose(-2, -1)).softmax(dim=-1)
        y = (self.attn_drop(weights) @ v).transpose(1, 2).reshape(b, n, c)
        return self.proj_drop(self.proj(y))


class MemEffAttention(Attention):
    def forward(self, x, attn_bias=None):
        if attn_bias is not None:  # the memory-efficient kernel would take it; none here
            raise AssertionError("attn_bias needs xFormers")
        return super().forward(x)


attn = MemEffAttention(dim=16, num_heads=4)
