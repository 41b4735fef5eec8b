"""Correct (torch): guided-diffusion's AttentionBlock with its legacy QKV attention (the default,
`use_new_attention_order=False`), written after it: x of shape (B, C, H, W) flattened to
(B, C, H*W), `norm` a GroupNorm of 32 groups computed in float32, one fused `qkv` map as a
1 x 1 Conv1d whose channels are read per head as (heads, 3, head_dim), q and k each scaled by
head_dim**-0.25 before their product, the softmax in float32, `proj_out` a 1 x 1 Conv1d and x
added back.

Left out: gradient checkpointing (the same forward, recomputed), and `proj_out` starting at
zero as the model starts it: it has random weights here, as after training, since a zero map
out would return x whatever the attention computed.

after: openai/guided-diffusion guided_diffusion/unet.py
commit: 22e0df8183507e13a7813f8d38d51b072ca1e67c
licence: MIT
target: attn
expected: ok
"""

import torch
from torch import nn


class GroupNorm32(nn.GroupNorm):
    def forward(self, x):
        return super().forward(x.float()).type(x.dtype)


class AttentionBlock(nn.Module):
    def __init__(self, channels, num_heads=1, num_head_channels=-1):
        super().__init__()
        self.num_heads = num_heads if num_head_channels == -1 else channels // num_head_channels
        self.norm = GroupNorm32(32, channels)
        self.qkv = nn.Conv1d(channels, 3 * channels, 1)
        self.proj_out = nn.Conv1d(channels, channels, 1)

    def forward(self, x):
        b, c, *spatial = x.shape
        x = x.reshape(b, c, -1)
        qkv = self.qkv(self.norm(x))
        n = qkv.shape[-1]
        ch = c // self.num_heads
        q, k, v = qkv.reshape(b * self.num_heads, 3 * ch, n).split(ch, dim=1)  # per head
        root = ch**-0.25
        w = torch.einsum("bct,bcs->bts", q * root, k * root)
        w = w.float().softmax(dim=-1).type(w.dtype)
        h = torch.einsum("bts,bcs->bct", w, v).reshape(b, c, n)
        return (x + self.proj_out(h)).reshape(b, c, *spatial)


torch.manual_seed(0)
attn = AttentionBlock(64, num_head_channels=16)
