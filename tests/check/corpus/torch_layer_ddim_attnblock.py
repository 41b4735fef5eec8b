"""Correct (torch): DDIM's AttnBlock (the DDPM U-Net's attention, kept by Stable Diffusion's
autoencoder), written after it: an image x of shape (B, C, H, W); `norm` a GroupNorm of 32
groups, maps `q`, `k`, `v` and `proj_out` as 1 x 1 convolutions, one head, scores scaled by
C**-0.5 and softmaxed over the keys (dim=2 of (B, HW, HW)), x added back. Checked as n
positions laid out as an n x 1 image; the reference reads the norm and the maps from the run.

after: ermongroup/ddim models/diffusion.py
commit: e8df66cf02e457719930748b5c26e37e3126dfdd
licence: MIT
target: attn
expected: ok
"""

import torch
from torch import nn


class AttnBlock(nn.Module):
    def __init__(self, in_channels):
        super().__init__()
        self.norm = nn.GroupNorm(32, in_channels, eps=1e-6, affine=True)
        self.q, self.k, self.v, self.proj_out = (
            nn.Conv2d(in_channels, in_channels, kernel_size=1) for _ in range(4)
        )

    def forward(self, x):
        b, c, h, w = x.shape
        y = self.norm(x)
        q, k, v = (m(y).reshape(b, c, h * w) for m in (self.q, self.k, self.v))
        weights = torch.softmax(torch.bmm(q.transpose(1, 2), k) * c**-0.5, dim=2)
        out = torch.bmm(v, weights.transpose(1, 2)).reshape(b, c, h, w)
        return x + self.proj_out(out)


torch.manual_seed(0)
attn = AttnBlock(64)
with torch.no_grad():  # a trained norm is not the identity
    attn.norm.weight.normal_(1.0, 0.2)
    attn.norm.bias.normal_(0.0, 0.2)
