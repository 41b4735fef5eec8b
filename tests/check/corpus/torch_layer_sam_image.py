"""Correct (torch): Segment Anything's image-encoder Attention without relative positions,
written after it: called on an image x of shape (B, H, W, C), one fused map `qkv`,
`num_heads` heads folded into the batch axis, q multiplied by `scale` (head_dim**-0.5) before
the product, `proj` out, the output again (B, H, W, C). Checked as a sequence of n positions
laid out as an n x 1 image.

after: facebookresearch/segment-anything segment_anything/modeling/image_encoder.py
commit: 07b97cb771615000f6ceca1ca46cfadc1fb8acbb
licence: Apache-2.0
target: attn
expected: ok
"""

from torch import nn


class Attention(nn.Module):
    def __init__(self, dim, num_heads=8, qkv_bias=True):
        super().__init__()
        self.num_heads = num_heads
        self.scale = (dim // num_heads) ** -0.5
        self.qkv = nn.Linear(dim, 3 * dim, bias=qkv_bias)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        b, h, w, c = x.shape
        heads, n = self.num_heads, h * w
        qkv = self.qkv(x).view(b, n, 3, heads, -1).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.reshape(3, b * heads, n, -1)
        weights = ((q * self.scale) @ k.transpose(-2, -1)).softmax(dim=-1)
        y = (weights @ v).view(b, heads, h, w, -1).permute(0, 2, 3, 1, 4).reshape(b, h, w, c)
        return self.proj(y)


attn = Attention(dim=16, num_heads=4)
