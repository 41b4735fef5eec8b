"""Correct (torch): guided-diffusion's AttentionBlock with QKVAttentionLegacy (the default,
`use_new_attention_order=False`): x of shape (B, C, H, W) flattened to (B, C, H*W), a
GroupNorm of 32 groups computed in float32, one fused `qkv` map as a 1 x 1 Conv1d whose
channels are read per head as (heads, 3, head_dim), q and k each scaled by head_dim**-0.25
before their product ("more stable with f16"), `proj_out` a 1 x 1 Conv1d, and x added back.

Condensed: `checkpoint(self._forward, ...)` (gradient checkpointing, the same forward) is
called as `_forward` directly, and `proj_out`, which the model starts at zero
(`zero_module`), is given random weights, as after training; a zero map out would make the
block return x whatever its attention computed.

repository: openai/guided-diffusion
path: guided_diffusion/unet.py
commit: 22e0df8183507e13a7813f8d38d51b072ca1e67c
licence: MIT
target: attn
expected: ok
"""

import math

import torch as th
import torch.nn as nn


class GroupNorm32(nn.GroupNorm):
    def forward(self, x):
        return super().forward(x.float()).type(x.dtype)


def normalization(channels):
    return GroupNorm32(32, channels)


class QKVAttentionLegacy(nn.Module):
    def __init__(self, n_heads):
        super().__init__()
        self.n_heads = n_heads

    def forward(self, qkv):
        bs, width, length = qkv.shape
        assert width % (3 * self.n_heads) == 0
        ch = width // (3 * self.n_heads)
        q, k, v = qkv.reshape(bs * self.n_heads, ch * 3, length).split(ch, dim=1)
        scale = 1 / math.sqrt(math.sqrt(ch))
        weight = th.einsum("bct,bcs->bts", q * scale, k * scale)
        weight = th.softmax(weight.float(), dim=-1).type(weight.dtype)
        a = th.einsum("bts,bcs->bct", weight, v)
        return a.reshape(bs, -1, length)


class AttentionBlock(nn.Module):
    def __init__(self, channels, num_heads=1, num_head_channels=-1):
        super().__init__()
        self.channels = channels
        if num_head_channels == -1:
            self.num_heads = num_heads
        else:
            self.num_heads = channels // num_head_channels
        self.norm = normalization(channels)
        self.qkv = nn.Conv1d(channels, channels * 3, 1)
        self.attention = QKVAttentionLegacy(self.num_heads)
        self.proj_out = nn.Conv1d(channels, channels, 1)

    def forward(self, x):
        return self._forward(x)

    def _forward(self, x):
        b, c, *spatial = x.shape
        x = x.reshape(b, c, -1)
        qkv = self.qkv(self.norm(x))
        h = self.attention(qkv)
        h = self.proj_out(h)
        return (x + h).reshape(b, c, *spatial)


th.manual_seed(0)
attn = AttentionBlock(64, num_head_channels=16)
