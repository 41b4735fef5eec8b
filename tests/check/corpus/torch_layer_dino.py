"""Correct (torch): DINO's (the first, 2021) vision transformer Attention, written after it: one
fused map `qkv` read as (3, B, heads, N, head_dim), scores scaled by head_dim**-0.5 (`qk_scale`
unset), dropout on the weights, `proj` out; it returns (x, attn), the maps DINO shows.

after: facebookresearch/dino vision_transformer.py
commit: 7c446df5b9f45747937fb0d72314eb9f7b66930a
licence: Apache-2.0
target: attn
expected: ok
"""

import torch
from torch import nn


class Attention(nn.Module):
    def __init__(
        self, dim, num_heads=8, qkv_bias=False, qk_scale=None, attn_drop=0.0, proj_drop=0.0
    ):
        super().__init__()
        self.num_heads = num_heads
        self.scale = qk_scale or (dim // num_heads) ** -0.5
        self.qkv = nn.Linear(dim, 3 * dim, bias=qkv_bias)
        self.proj = nn.Linear(dim, dim)
        self.attn_drop, self.proj_drop = nn.Dropout(attn_drop), nn.Dropout(proj_drop)

    def forward(self, x):
        b, n, c = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.num_heads, -1).permute(2, 0, 3, 1, 4)
        attn = (q @ k.transpose(-2, -1) * self.scale).softmax(dim=-1)
        y = (self.attn_drop(attn) @ v).transpose(1, 2).reshape(b, n, c)
        return self.proj_drop(self.proj(y)), attn


torch.manual_seed(0)
attn = Attention(32, num_heads=4, qkv_bias=True)
