"""Correct (torch): OpenCLIP's Attention with `scaled_cosine=True` (Swin v2's scaled cosine
attention as open_clip offers it), written after it: one packed `in_proj_weight` (3C, C) with
`in_proj_bias`, applied by F.linear to x (batch, n, C) and cut into q, k, v (k_x and v_x None:
self-attention); the cosine of q and k times exp(min(`logit_scale`, `logit_scale_max`)), a
temperature learned per head; an additive or boolean `attn_mask`; `out_proj` out. Without
scaled_cosine it is F.scaled_dot_product_attention at head_dim**-0.5. The heads' temperatures
differ, as after training.

after: mlfoundations/open_clip src/open_clip/transformer.py
commit: 89fb801f1e6087880e951fc8354b8a2077b79c6d
licence: MIT
target: attn
expected: ok
"""

import math

import torch
import torch.nn.functional as F
from torch import nn


class Attention(nn.Module):
    def __init__(
        self, dim, num_heads=8, qkv_bias=True, scaled_cosine=False, attn_drop=0.0, proj_drop=0.0
    ):
        super().__init__()
        self.num_heads, self.head_dim = num_heads, dim // num_heads
        self.scale = self.head_dim**-0.5
        self.logit_scale_max = math.log(100.0)
        self.in_proj_weight = nn.Parameter(nn.init.xavier_uniform_(torch.empty(3 * dim, dim)))
        self.in_proj_bias = nn.Parameter(torch.zeros(3 * dim)) if qkv_bias else None
        self.logit_scale = (
            nn.Parameter(torch.full((num_heads, 1, 1), math.log(10.0))) if scaled_cosine else None
        )
        self.attn_drop = nn.Dropout(attn_drop)
        self.out_proj = nn.Linear(dim, dim)
        self.out_drop = nn.Dropout(proj_drop)

    def forward(self, x, k_x=None, v_x=None, attn_mask=None):
        b, n, c = x.shape
        q, k, v = (
            t.reshape(b, n, self.num_heads, self.head_dim).transpose(1, 2)
            for t in F.linear(x, self.in_proj_weight, self.in_proj_bias).chunk(3, dim=-1)
        )
        if self.logit_scale is None:
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask, scale=self.scale)
        else:
            cos = F.normalize(q, dim=-1) @ F.normalize(k, dim=-1).transpose(-1, -2)
            s = cos * self.logit_scale.clamp(max=self.logit_scale_max).exp()
            if attn_mask is not None and attn_mask.dtype == torch.bool:
                s = s.masked_fill(~attn_mask, float("-inf"))
            elif attn_mask is not None:
                s = s + attn_mask.to(s.dtype)
            y = self.attn_drop(s.softmax(dim=-1)) @ v
        return self.out_drop(self.out_proj(y.transpose(1, 2).reshape(b, n, c)))


torch.manual_seed(0)
attn = Attention(32, num_heads=4, scaled_cosine=True)
with torch.no_grad():  # trained: a temperature per head, the biases not 0
    attn.logit_scale.copy_(torch.log(torch.tensor([3.0, 12.0, 40.0, 70.0])).view(4, 1, 1))
    attn.in_proj_bias.normal_(0.0, 0.1)
