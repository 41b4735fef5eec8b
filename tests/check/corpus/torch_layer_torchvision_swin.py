"""Buggy (torch): torchvision's ShiftedWindowAttention (Swin Transformer), written after it as
it shipped in torchvision 0.14 (pytorch/vision#7103, "Dropout in SwinTransformer unable to set
training=False"; fixed by #7224): the weights go through F.dropout(attn, p=attention_dropout)
and the output through F.dropout(x, p=dropout), whose `training` defaults to True, so a model
in eval mode still drops. Its conventions: x of shape (B, H, W, C), channels last; windows of
`window_size` tokens, the image padded with zeros to a multiple of them first; a cyclic shift
by `shift_size` with the shifted regions kept apart by -100; one map `qkv` with bias and
`proj`, both applied through F.linear on the module's weights; q multiplied by
head_dim**-0.5; a learned relative position bias per head added to the scores.

Checked only for what it can be: with no dropout it is read as wrong-output. Its windows
along n and the zero padding of the last one are found by probing (issue 32's local windows,
torch_layer_swin_shifted.py), but its 4 x 4 windows on the check's n x 1 image also pad each
row with three zero tokens (its position bias is held at 0, by its name, as T5's is).

after: pytorch/vision torchvision/models/swin_transformer.py
commit: 5e8e2f125f140d1e908cf424a6a85cacad758125
licence: BSD-3-Clause
target: attn
expected: buggy random-output
"""

import torch
import torch.nn.functional as F
from torch import nn


def _windows(x, wh, ww):  # (B, H, W, C) -> (B * windows, wh * ww, C)
    b, h, w, c = x.shape
    x = x.view(b, h // wh, wh, w // ww, ww, c).permute(0, 1, 3, 2, 4, 5)
    return x.reshape(-1, wh * ww, c)


def _region_mask(x, window, shift):
    """-100 between tokens of a window that came from different regions before the shift."""
    (wh, ww), (sh, sw) = window, shift
    h, w = x.shape[1:3]
    label = x.new_zeros((h, w))
    for i, rows in enumerate((slice(0, -wh), slice(-wh, -sh), slice(-sh, None))):
        for j, cols in enumerate((slice(0, -ww), slice(-ww, -sw), slice(-sw, None))):
            label[rows, cols] = 3 * i + j
    label = _windows(label[None, :, :, None], wh, ww)[..., 0]
    apart = label[:, None, :] != label[:, :, None]
    return torch.zeros_like(apart, dtype=x.dtype).masked_fill(apart, -100.0)


def shifted_window_attention(x, qkv, proj, bias, window, heads, shift, p_attn=0.0, p_out=0.0):
    b, h, w, c = x.shape
    wh, ww = window
    x = F.pad(x, (0, 0, 0, (ww - w % ww) % ww, 0, (wh - h % wh) % wh))
    hp, wp = x.shape[1:3]
    shift = [0 if wh >= hp else shift[0], 0 if ww >= wp else shift[1]]
    if sum(shift):
        x = torch.roll(x, (-shift[0], -shift[1]), dims=(1, 2))
    t = _windows(x, wh, ww)
    q, k, v = F.linear(t, qkv.weight, qkv.bias).unflatten(-1, (3, heads, -1)).permute(2, 0, 3, 1, 4)
    scores = (q * (c // heads) ** -0.5) @ k.transpose(-2, -1) + bias
    if sum(shift):
        regions = _region_mask(x, window, shift)
        scores = (scores.unflatten(0, (b, -1)) + regions[None, :, None]).flatten(0, 1)
    weights = F.dropout(scores.softmax(dim=-1), p=p_attn)  # the bug: training left True
    out = F.dropout(
        F.linear((weights @ v).transpose(1, 2).flatten(2), proj.weight, proj.bias), p=p_out
    )
    out = out.view(b, hp // wh, wp // ww, wh, ww, c).permute(0, 1, 3, 2, 4, 5).reshape(b, hp, wp, c)
    if sum(shift):
        out = torch.roll(out, (shift[0], shift[1]), dims=(1, 2))
    return out[:, :h, :w].contiguous()


class ShiftedWindowAttention(nn.Module):
    def __init__(self, dim, window_size, shift_size, num_heads, qkv_bias=True, proj_bias=True,
                 attention_dropout=0.0, dropout=0.0):  # fmt: skip
        super().__init__()
        self.window_size, self.shift_size, self.num_heads = window_size, shift_size, num_heads
        self.attention_dropout, self.dropout = attention_dropout, dropout
        self.qkv = nn.Linear(dim, dim * 3, bias=qkv_bias)
        self.proj = nn.Linear(dim, dim, bias=proj_bias)
        wh, ww = window_size
        self.relative_position_bias_table = nn.Parameter(
            torch.zeros((2 * wh - 1) * (2 * ww - 1), num_heads)
        )
        nn.init.trunc_normal_(self.relative_position_bias_table, std=0.02)
        at = torch.stack(torch.meshgrid(torch.arange(wh), torch.arange(ww), indexing="ij")).flatten(
            1
        )
        rel = (at[:, :, None] - at[:, None, :]).permute(1, 2, 0)
        index = (rel[..., 0] + wh - 1) * (2 * ww - 1) + rel[..., 1] + ww - 1
        self.register_buffer("relative_position_index", index.flatten())

    def forward(self, x):
        n = self.window_size[0] * self.window_size[1]
        bias = self.relative_position_bias_table[self.relative_position_index]
        bias = bias.view(n, n, -1).permute(2, 0, 1).contiguous()[None]
        return shifted_window_attention(
            x, self.qkv, self.proj, bias, self.window_size, self.num_heads, list(self.shift_size),
            self.attention_dropout, self.dropout,
        )  # fmt: skip


torch.manual_seed(0)
attn = ShiftedWindowAttention(32, [4, 4], [0, 0], 4, attention_dropout=0.1)
