"""Correct (torch): DDIM's AttnBlock (the DDPM U-Net's attention, which Stable Diffusion's
autoencoder keeps): an image x of shape (B, C, H, W), NCHW; a GroupNorm of 32 groups over
all positions, maps `q`, `k`, `v` and `proj_out` as 1 x 1 convolutions, one head, the scores
scaled by C**-0.5, softmax over the keys (dim=2), and x added back. Checked as n positions
laid out as an n x 1 image, channels first; the reference reads the norm and the maps from
the run.

repository: ermongroup/ddim
path: models/diffusion.py
commit: e8df66cf02e457719930748b5c26e37e3126dfdd
licence: MIT
target: attn
expected: ok
"""

import torch
import torch.nn as nn


def Normalize(in_channels):
    return torch.nn.GroupNorm(num_groups=32, num_channels=in_channels, eps=1e-6, affine=True)


class AttnBlock(nn.Module):
    def __init__(self, in_channels):
        super().__init__()
        self.in_channels = in_channels
        self.norm = Normalize(in_channels)
        self.q = torch.nn.Conv2d(in_channels, in_channels, kernel_size=1, stride=1, padding=0)
        self.k = torch.nn.Conv2d(in_channels, in_channels, kernel_size=1, stride=1, padding=0)
        self.v = torch.nn.Conv2d(in_channels, in_channels, kernel_size=1, stride=1, padding=0)
        self.proj_out = torch.nn.Conv2d(
            in_channels, in_channels, kernel_size=1, stride=1, padding=0
        )

    def forward(self, x):
        h_ = x
        h_ = self.norm(h_)
        q = self.q(h_)
        k = self.k(h_)
        v = self.v(h_)

        # compute attention
        b, c, h, w = q.shape
        q = q.reshape(b, c, h * w)
        q = q.permute(0, 2, 1)  # b,hw,c
        k = k.reshape(b, c, h * w)  # b,c,hw
        w_ = torch.bmm(q, k)  # b,hw,hw    w[b,i,j]=sum_c q[b,i,c]k[b,c,j]
        w_ = w_ * (int(c) ** (-0.5))
        w_ = torch.nn.functional.softmax(w_, dim=2)

        # attend to values
        v = v.reshape(b, c, h * w)
        w_ = w_.permute(0, 2, 1)  # b,hw,hw (first hw of k, second of q)
        h_ = torch.bmm(v, w_)
        h_ = h_.reshape(b, c, h, w)

        h_ = self.proj_out(h_)

        return x + h_


torch.manual_seed(0)
attn = AttnBlock(64)
with torch.no_grad():  # a trained norm is not the identity
    attn.norm.weight.normal_(1.0, 0.2)
    attn.norm.bias.normal_(0.0, 0.2)
