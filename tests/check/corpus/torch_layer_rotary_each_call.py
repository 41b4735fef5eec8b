"""Buggy (torch): a GPT-NeoX-style layer that works its rotary angles out on every call, from
the positions and a wavelength, and keeps no angle, frequency or cos/sin tensor; its scores are
never divided by sqrt(d). The check answers its cos and sin as at angle 0 while it runs
(rotary.AtZero), so the rotation leaves q and k as they are and the missing scale is named."""

import torch
from torch import nn


class RotaryEachCall(nn.Module):
    def __init__(self, width=32, heads=4, wavelength=10000.0):
        super().__init__()
        self.heads, self.size, self.wavelength = heads, width // heads, wavelength
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)

    def rotate(self, t):
        n, half = t.shape[-2], self.size // 2
        inverse = self.wavelength ** (-torch.arange(half, dtype=t.dtype) / half)
        angle = torch.arange(n, dtype=t.dtype)[:, None] * inverse
        cos, sin = angle.cos(), angle.sin()
        first, second = t[..., :half], t[..., half:]
        return torch.cat([first * cos - second * sin, first * sin + second * cos], dim=-1)

    def forward(self, x):
        b, n, c = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.heads, self.size).permute(2, 0, 3, 1, 4)
        q, k = self.rotate(q), self.rotate(k)
        scores = q @ k.transpose(-2, -1)  # no / sqrt(size)
        keep = torch.ones(n, n, dtype=torch.bool).tril()
        weights = scores.masked_fill(~keep, float("-inf")).softmax(dim=-1)
        return self.out((weights @ v).transpose(1, 2).reshape(b, n, c))


torch.manual_seed(0)
attn = RotaryEachCall()
