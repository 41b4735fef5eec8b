"""Correct (torch): OpenCLIP's Attention with `scaled_cosine=True` (Swin v2's scaled cosine
attention, as open_clip offers it): one packed `in_proj_weight` applied with F.linear to x
(batch, n, C) once (k_x and v_x None: self-attention), chunked into q, k, v; the cosine of q
and k times exp(clamp(logit_scale)), a temperature learned per head; `out_proj` out. The
heads' temperatures differ, as after training. Condensed to the options used: no QK-norm,
head scaling or inner norm (each an nn.Identity or None there).

repository: mlfoundations/open_clip
path: src/open_clip/transformer.py
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
        self,
        dim: int,
        num_heads: int = 8,
        qkv_bias: bool = True,
        scaled_cosine: bool = False,
        logit_scale_max: float = math.log(1.0 / 0.01),
        attn_drop: float = 0.0,
        proj_drop: float = 0.0,
    ):
        super().__init__()
        self.scaled_cosine = scaled_cosine
        assert dim % num_heads == 0, "dim should be divisible by num_heads"
        self.num_heads = num_heads
        self.head_dim = dim // num_heads
        self.scale = self.head_dim**-0.5
        self.logit_scale_max = logit_scale_max
        self.in_proj_weight = nn.Parameter(torch.empty((dim * 3, dim)))
        if qkv_bias:
            self.in_proj_bias = nn.Parameter(torch.empty(dim * 3))
        else:
            self.in_proj_bias = None
        if self.scaled_cosine:
            self.logit_scale = nn.Parameter(torch.log(10 * torch.ones((num_heads, 1, 1))))
        else:
            self.logit_scale = None
        self.attn_drop = nn.Dropout(attn_drop)
        self.out_proj = nn.Linear(dim, dim)
        self.out_drop = nn.Dropout(proj_drop)
        nn.init.xavier_uniform_(self.in_proj_weight)
        if self.in_proj_bias is not None:
            nn.init.constant_(self.in_proj_bias, 0.0)
        nn.init.constant_(self.out_proj.bias, 0.0)

    def forward(
        self,
        x: torch.Tensor,
        k_x: torch.Tensor | None = None,
        v_x: torch.Tensor | None = None,
        attn_mask: torch.Tensor | None = None,
    ):
        N, L, C = x.shape
        q, k, v = F.linear(x, self.in_proj_weight, self.in_proj_bias).chunk(3, dim=-1)

        q = q.reshape(N, -1, self.num_heads, self.head_dim).transpose(1, 2)
        k = k.reshape(N, -1, self.num_heads, self.head_dim).transpose(1, 2)
        v = v.reshape(N, -1, self.num_heads, self.head_dim).transpose(1, 2)

        if attn_mask is not None and attn_mask.ndim == 3:
            attn_mask = attn_mask.reshape(N, self.num_heads, L, L)

        if self.logit_scale is not None:
            attn = F.normalize(q, dim=-1) @ F.normalize(k, dim=-1).transpose(-1, -2)
            logit_scale = torch.clamp(self.logit_scale, max=self.logit_scale_max).exp()
            attn = attn * logit_scale
            if attn_mask is not None:
                if attn_mask.dtype == torch.bool:
                    attn.masked_fill_(~attn_mask, float("-inf"))
                else:
                    attn = attn + attn_mask.to(dtype=attn.dtype)
            attn = attn.softmax(dim=-1)
            attn = self.attn_drop(attn)
            x = attn @ v
        else:
            x = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask, scale=self.scale)

        x = x.transpose(1, 2).reshape(N, -1, C)
        x = self.out_proj(x)
        x = self.out_drop(x)
        return x


torch.manual_seed(0)
attn = Attention(32, num_heads=4, scaled_cosine=True)
with torch.no_grad():  # trained: a temperature per head, the biases not 0
    attn.logit_scale.copy_(torch.log(torch.tensor([3.0, 12.0, 40.0, 70.0])).view(4, 1, 1))
    attn.in_proj_bias.normal_(0.0, 0.1)
