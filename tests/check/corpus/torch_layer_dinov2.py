"""Correct (torch): DINOv2's Attention (dinov2/layers/attention.py) and MemEffAttention as
they run without xFormers: one fused map `qkv` reshaped straight to (3, B, heads, N, d) by
permute, q (not the scores) multiplied by head_dim**-0.5, `num_heads` heads, `proj` out;
MemEffAttention takes (x, attn_bias=None) and falls back to the same computation.

repository: facebookresearch/dinov2
path: dinov2/layers/attention.py
commit: 05c66df0cfa837710197d4769158c87e36afad2c
licence: Apache-2.0
target: attn
expected: ok
"""

from torch import Tensor, nn

XFORMERS_AVAILABLE = False  # as on a machine without xFormers


class Attention(nn.Module):
    def __init__(
        self,
        dim: int,
        num_heads: int = 8,
        qkv_bias: bool = False,
        proj_bias: bool = True,
        attn_drop: float = 0.0,
        proj_drop: float = 0.0,
    ) -> None:
        super().__init__()
        self.num_heads = num_heads
        head_dim = dim // num_heads
        self.scale = head_dim**-0.5
        self.qkv = nn.Linear(dim, dim * 3, bias=qkv_bias)
        self.attn_drop = nn.Dropout(attn_drop)
        self.proj = nn.Linear(dim, dim, bias=proj_bias)
        self.proj_drop = nn.Dropout(proj_drop)

    def forward(self, x: Tensor) -> Tensor:
        B, N, C = x.shape
        qkv = (
            self.qkv(x).reshape(B, N, 3, self.num_heads, C // self.num_heads).permute(2, 0, 3, 1, 4)
        )
        q, k, v = qkv[0] * self.scale, qkv[1], qkv[2]
        attn = (q @ k.transpose(-2, -1)).softmax(dim=-1)
        x = (self.attn_drop(attn) @ v).transpose(1, 2).reshape(B, N, C)
        return self.proj_drop(self.proj(x))


class MemEffAttention(Attention):
    def forward(self, x: Tensor, attn_bias=None) -> Tensor:
        if not XFORMERS_AVAILABLE:
            if attn_bias is not None:
                raise AssertionError("xFormers is required for using nested tensors")
            return super().forward(x)
        raise NotImplementedError("the xFormers path is not part of this case")


attn = MemEffAttention(dim=16, num_heads=4)
