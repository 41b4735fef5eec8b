"""Correct (torch): torchvision's ShiftedWindowAttention (Swin Transformer), written after it as
it is since #7224 (dropout only in training), with windows shorter than the image and shifted:
the image (B, H, W, C) padded with zeros to whole windows, rolled back by `shift_size`, cut
into windows of window_size[0] x window_size[1] tokens that attend only among themselves, the
tokens a roll brought together from opposite edges kept apart by -100 added to their scores,
then put back. Issue 32's local windows: each query sees its own window, found by probing, and
the zero padding is attended like any token (its keys and values are the biases of `qkv`).

Its conventions: one map `qkv` with bias and `proj`, applied through F.linear on the module's
weights; q multiplied by head_dim**-0.5; (B, H, W, C) channels last; a learned bias per head
for each offset between two tokens of a window, `relative_position_bias_table`, indexed by a
buffer and added to the scores (the check holds the table at 0, as it holds rotations).

after: pytorch/vision torchvision/models/swin_transformer.py
commit: 42759b1cc82bed60481c2802811595833e2ddd9b
licence: BSD-3-Clause
target: attn
expected: ok
"""

import torch
import torch.nn.functional as F
from torch import nn


def windows(x, wh, ww):  # (B, H, W, ...) -> (B * windows, wh * ww, ...)
    b, h, w = x.shape[:3]
    x = x.reshape(b, h // wh, wh, w // ww, ww, -1).transpose(2, 3)
    return x.reshape(b * (h // wh) * (w // ww), wh * ww, -1)


class ShiftedWindowAttention(nn.Module):
    def __init__(self, dim, window_size, shift_size, num_heads, attention_dropout=0.0):
        super().__init__()
        self.window_size, self.shift_size, self.num_heads = window_size, shift_size, num_heads
        self.attention_dropout = attention_dropout
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)
        # each offset (dy, dx) between two tokens of a window, as one index into the table
        wh, ww = window_size
        self.relative_position_bias_table = nn.Parameter(
            torch.randn((2 * wh - 1) * (2 * ww - 1), num_heads) * 0.02
        )
        at = torch.stack(
            [a.flatten() for a in torch.meshgrid(*map(torch.arange, window_size), indexing="ij")]
        )
        dy, dx = at[:, :, None] - at[:, None, :]
        self.register_buffer("relative_position_index", (dy + wh - 1) * (2 * ww - 1) + dx + ww - 1)

    def forward(self, x):
        (b, h, w, c), (wh, ww) = x.shape, self.window_size
        x = F.pad(x, (0, 0, 0, -w % ww, 0, -h % wh))
        hp, wp = x.shape[1:3]
        shift = [0 if wh >= hp else self.shift_size[0], 0 if ww >= wp else self.shift_size[1]]
        x = torch.roll(x, (-shift[0], -shift[1]), dims=(1, 2))
        # which stretch of the padded image each token came from: tokens of different ones
        # meet in a window only through the roll
        edge = [torch.bucketize(torch.arange(n), torch.tensor([n - size, n - s]), right=True)
                for n, size, s in ((hp, wh, shift[0]), (wp, ww, shift[1]))]  # fmt: skip
        region = windows((edge[0][:, None] * 3 + edge[1][None, :])[None, ..., None], wh, ww)[..., 0]
        apart = (region[:, :, None] != region[:, None, :]) & (sum(shift) > 0)
        t = windows(x, wh, ww)
        q, k, v = (
            F.linear(t, self.qkv.weight, self.qkv.bias)
            .unflatten(-1, (3, self.num_heads, -1))
            .permute(2, 0, 3, 1, 4)
        )
        scores = (q * (c // self.num_heads) ** -0.5) @ k.transpose(-2, -1)
        scores = scores + self.relative_position_bias_table[self.relative_position_index].permute(
            2, 0, 1
        )
        scores = (scores.unflatten(0, (b, -1)) - 100.0 * apart[None, :, None]).flatten(0, 1)
        weights = F.dropout(scores.softmax(dim=-1), self.attention_dropout, self.training)
        out = F.linear((weights @ v).transpose(1, 2).flatten(2), self.proj.weight, self.proj.bias)
        out = out.view(b, hp // wh, wp // ww, wh, ww, c).transpose(2, 3).reshape(b, hp, wp, c)
        return torch.roll(out, (shift[0], shift[1]), dims=(1, 2))[:, :h, :w]


torch.manual_seed(0)
attn = ShiftedWindowAttention(32, [4, 1], [2, 0], 4, attention_dropout=0.1)
