"""Correct (torch): DINO's (the first, 2021) vision transformer Attention: one fused `qkv` map
reshaped to (3, B, heads, N, head_dim), scaled by head_dim**-0.5 (`qk_scale` unset), `proj`
out; it returns (x, attn), the attention maps DINO shows.

repository: facebookresearch/dino
path: vision_transformer.py
commit: 7c446df5b9f45747937fb0d72314eb9f7b66930a
licence: Apache-2.0
target: attn
expected: ok
"""

import torch
import torch.nn as nn


class Attention(nn.Module):
    def __init__(
        self, dim, num_heads=8, qkv_bias=False, qk_scale=None, attn_drop=0.0, proj_drop=0.0
    ):
        super().__init__()
        self.num_heads = num_heads
        head_dim = dim // num_heads
        self.scale = qk_scale or head_dim**-0.5
        self.qkv = nn.Linear(dim, dim * 3, bias=qkv_bias)
        self.attn_drop = nn.Dropout(attn_drop)
        self.proj = nn.Linear(dim, dim)
        self.proj_drop = nn.Dropout(proj_drop)

    def forward(self, x):
        B, N, C = x.shape
        qkv = (
            self.qkv(x).reshape(B, N, 3, self.num_heads, C // self.num_heads).permute(2, 0, 3, 1, 4)
        )
        q, k, v = qkv[0], qkv[1], qkv[2]
        attn = (q @ k.transpose(-2, -1)) * self.scale
        attn = attn.softmax(dim=-1)
        attn = self.attn_drop(attn)
        x = (attn @ v).transpose(1, 2).reshape(B, N, C)
        x = self.proj(x)
        x = self.proj_drop(x)
        return x, attn


torch.manual_seed(0)
attn = Attention(32, num_heads=4, qkv_bias=True)
