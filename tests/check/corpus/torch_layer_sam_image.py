"""Correct (torch): Segment Anything's image-encoder Attention without relative positions: called
on an image x of shape (B, H, W, C), one fused map `qkv`, `num_heads` heads moved into the batch
axis, q scaled by head_dim**-0.5 before the product, `proj` out, the output again (B, H, W, C).
Checked as a sequence of n positions laid out as an n x 1 image.

repository: facebookresearch/segment-anything
path: segment_anything/modeling/image_encoder.py
commit: 07b97cb771615000f6ceca1ca46cfadc1fb8acbb
licence: Apache-2.0
target: attn
expected: ok
"""

import torch
import torch.nn as nn


class Attention(nn.Module):
    """Multi-head Attention block with relative position embeddings."""

    def __init__(self, dim: int, num_heads: int = 8, qkv_bias: bool = True) -> None:
        super().__init__()
        self.num_heads = num_heads
        head_dim = dim // num_heads
        self.scale = head_dim**-0.5
        self.qkv = nn.Linear(dim, dim * 3, bias=qkv_bias)
        self.proj = nn.Linear(dim, dim)
        self.use_rel_pos = False

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, H, W, _ = x.shape
        # qkv with shape (3, B, nHead, H * W, C)
        qkv = self.qkv(x).reshape(B, H * W, 3, self.num_heads, -1).permute(2, 0, 3, 1, 4)
        # q, k, v with shape (B * nHead, H * W, C)
        q, k, v = qkv.reshape(3, B * self.num_heads, H * W, -1).unbind(0)
        attn = (q * self.scale) @ k.transpose(-2, -1)
        attn = attn.softmax(dim=-1)
        x = (attn @ v).view(B, self.num_heads, H, W, -1).permute(0, 2, 3, 1, 4).reshape(B, H, W, -1)
        return self.proj(x)


attn = Attention(dim=16, num_heads=4)
