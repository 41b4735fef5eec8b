"""Buggy (torch): timm's vision_transformer Attention, written after it as it shipped before
884ef88 ("fix all SDPA dropouts", #1978, October 2023): on the fused path it hands
F.scaled_dot_product_attention `dropout_p=self.attn_drop.p` whatever the mode, and a function
has no eval mode, so an `attn_drop` above 0 drops weights at inference too (the eager path's
nn.Dropout does not). Its conventions: one map `qkv` read as (B, N, 3, heads, head_dim) and
permuted to three (B, heads, N, head_dim); optional QK-norm modules `q_norm`, `k_norm`
(Identity when off); `proj` and `proj_drop` after joining the heads; fused by default.

after: huggingface/pytorch-image-models timm/models/vision_transformer.py
commit: b500cae4c537e0e39959fad1c5a423b0261c82c6
licence: Apache-2.0
target: attn
expected: buggy random-output
"""

import torch
import torch.nn.functional as F
from torch import nn


class Attention(nn.Module):
    def __init__(
        self, dim, num_heads=8, qkv_bias=False, qk_norm=False, attn_drop=0.0, proj_drop=0.0,
        norm_layer=nn.LayerNorm,
    ):  # fmt: skip
        super().__init__()
        self.num_heads, self.head_dim = num_heads, dim // num_heads
        self.scale = self.head_dim**-0.5
        self.fused_attn = True
        self.qkv = nn.Linear(dim, 3 * dim, bias=qkv_bias)
        self.q_norm = norm_layer(self.head_dim) if qk_norm else nn.Identity()
        self.k_norm = norm_layer(self.head_dim) if qk_norm else nn.Identity()
        self.attn_drop, self.proj_drop = nn.Dropout(attn_drop), nn.Dropout(proj_drop)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        b, n, c = x.shape
        parts = self.qkv(x).view(b, n, 3, self.num_heads, self.head_dim).permute(2, 0, 3, 1, 4)
        q, k, v = parts[0], parts[1], parts[2]
        q, k = self.q_norm(q), self.k_norm(k)
        if self.fused_attn:
            # the shipped bug: the module's p, not 0 outside training
            y = F.scaled_dot_product_attention(q, k, v, dropout_p=self.attn_drop.p)
        else:
            y = self.attn_drop((q * self.scale @ k.transpose(-2, -1)).softmax(dim=-1)) @ v
        return self.proj_drop(self.proj(y.transpose(1, 2).reshape(b, n, c)))


torch.manual_seed(0)
attn = Attention(32, num_heads=4, qkv_bias=True, attn_drop=0.1)
