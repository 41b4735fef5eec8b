"""Correct (torch): PVT v2's Attention (Pyramid Vision Transformer), written after it at a stage
with no spatial reduction (`sr_ratio=1`, `linear=False`): called as layer(x, H, W), q from
`q`, k and v from one `kv` map (k's columns first), `proj` out, scores scaled by
head_dim**-0.5. H and W shape the keys only when they are reduced spatially, which is left
out here, so the check passes None for them (`args`).

after: whai362/PVT classification/pvt_v2.py
commit: 57e2dfaa5a46f9050d76f306a4fcd9a7c061f520
licence: Apache-2.0
target: attn
expected: ok
args: {"H": None, "W": None}
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
        self.q = nn.Linear(dim, dim, bias=qkv_bias)
        self.kv = nn.Linear(dim, 2 * dim, bias=qkv_bias)
        self.proj = nn.Linear(dim, dim)
        self.attn_drop, self.proj_drop = nn.Dropout(attn_drop), nn.Dropout(proj_drop)

    def forward(self, x, H, W):
        b, n, c = x.shape
        q = self.q(x).view(b, n, self.num_heads, -1).transpose(1, 2)
        k, v = self.kv(x).view(b, n, 2, self.num_heads, -1).permute(2, 0, 3, 1, 4)
        attn = (q @ k.transpose(-2, -1) * self.scale).softmax(dim=-1)
        y = (self.attn_drop(attn) @ v).transpose(1, 2).reshape(b, n, c)
        return self.proj_drop(self.proj(y))


torch.manual_seed(0)
attn = Attention(32, num_heads=4, qkv_bias=True)
