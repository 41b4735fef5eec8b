"""Correct (torch): Swin Transformer V2's WindowAttention, scaled cosine attention, written after
it: q and k normalised, their cosine times a per-head `logit_scale` clamped at log 100 and
exponentiated; `qkv`'s weight applied by F.linear with a bias made of `q_bias`, zeros (k has
none) and `v_bias`; an optional per-window additive mask; `proj` out. The heads' scales
differ, as after training.

Left out: the continuous relative position bias (a learned function of the offsets inside a
window) and the shifted windows; positions are not what the check reads.

after: microsoft/Swin-Transformer models/swin_transformer_v2.py
commit: f82860bfb5225915aca09c3227159ee9e1df874d
licence: MIT
target: attn
expected: ok
"""

import math

import torch
import torch.nn.functional as F
from torch import nn


class WindowAttention(nn.Module):
    def __init__(self, dim, num_heads, qkv_bias=True, attn_drop=0.0, proj_drop=0.0):
        super().__init__()
        self.num_heads = num_heads
        self.logit_scale = nn.Parameter(torch.full((num_heads, 1, 1), math.log(10.0)))
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.q_bias = nn.Parameter(torch.zeros(dim)) if qkv_bias else None
        self.v_bias = nn.Parameter(torch.zeros(dim)) if qkv_bias else None
        self.attn_drop = nn.Dropout(attn_drop)
        self.proj = nn.Linear(dim, dim)
        self.proj_drop = nn.Dropout(proj_drop)
        self.softmax = nn.Softmax(dim=-1)

    def forward(self, x, mask=None):
        b, n, c = x.shape
        bias = None
        if self.q_bias is not None:
            bias = torch.cat((self.q_bias, torch.zeros_like(self.q_bias), self.v_bias))
        qkv = F.linear(input=x, weight=self.qkv.weight, bias=bias)
        q, k, v = qkv.view(b, n, 3, self.num_heads, -1).permute(2, 0, 3, 1, 4)
        s = F.normalize(q, dim=-1) @ F.normalize(k, dim=-1).transpose(-2, -1)
        s = s * self.logit_scale.clamp(max=math.log(100.0)).exp()
        if mask is not None:  # (windows, n, n), the batch holding `windows` windows per image
            w = mask.shape[0]
            s = (s.view(b // w, w, self.num_heads, n, n) + mask[None, :, None]).view(b, -1, n, n)
        y = (self.attn_drop(self.softmax(s)) @ v).transpose(1, 2).reshape(b, n, c)
        return self.proj_drop(self.proj(y))


torch.manual_seed(0)
attn = WindowAttention(32, num_heads=4)
with torch.no_grad():  # trained: each head its own temperature, the biases not 0
    attn.logit_scale.copy_(torch.log(torch.tensor([4.0, 10.0, 25.0, 60.0])).view(4, 1, 1))
    attn.q_bias.normal_(0.0, 0.1)
    attn.v_bias.normal_(0.0, 0.1)
