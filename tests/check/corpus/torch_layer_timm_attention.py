"""Correct (torch): timm's Attention (`timm.layers`, 2026), written after it on its eager path:
one fused map `qkv` read as (3, B, heads, N, head_dim), optional `q_norm` / `k_norm` over each
head (Identity here), q multiplied by `scale` before the product, a mask argument `attn_mask`
(boolean: False hides a key; else added) and a flag `is_causal` that wins over it, both turned
into one additive bias, dropout on the weights, a `norm` on the joined heads and `proj` out.

after: huggingface/pytorch-image-models timm/layers/attention.py
commit: aa4b5850c1543fa488abf260f18390eda46cf85d
licence: Apache-2.0
target: attn
expected: ok
"""

import torch
from torch import nn


def additive_bias(n, scores, attn_mask=None, is_causal=False):
    if is_causal:
        return torch.full((n, n), float("-inf"), dtype=scores.dtype).triu(1)
    if attn_mask is None or attn_mask.dtype != torch.bool:
        return attn_mask
    return torch.zeros(attn_mask.shape, dtype=scores.dtype).masked_fill(~attn_mask, float("-inf"))


class Attention(nn.Module):
    def __init__(
        self,
        dim,
        num_heads=8,
        attn_head_dim=None,
        dim_out=None,
        qkv_bias=False,
        qk_norm=False,
        proj_bias=True,
        attn_drop=0.0,
        proj_drop=0.0,
        norm_layer=nn.LayerNorm,
    ):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = attn_head_dim or dim // num_heads
        self.attn_dim = self.num_heads * self.head_dim
        self.scale = self.head_dim**-0.5
        self.qkv = nn.Linear(dim, 3 * self.attn_dim, bias=qkv_bias)
        self.q_norm = norm_layer(self.head_dim) if qk_norm else nn.Identity()
        self.k_norm = norm_layer(self.head_dim) if qk_norm else nn.Identity()
        self.attn_drop = nn.Dropout(attn_drop)
        self.norm = nn.Identity()
        self.proj = nn.Linear(self.attn_dim, dim_out or dim, bias=proj_bias)
        self.proj_drop = nn.Dropout(proj_drop)

    def forward(self, x, attn_mask=None, is_causal=False):
        b, n, _ = x.shape
        parts = self.qkv(x).view(b, n, 3, self.num_heads, self.head_dim).permute(2, 0, 3, 1, 4)
        q, k, v = parts.unbind(0)
        q, k = self.q_norm(q) * self.scale, self.k_norm(k)
        scores = q @ k.transpose(-2, -1)
        bias = additive_bias(n, scores, attn_mask, is_causal)
        scores = scores if bias is None else scores + bias
        y = self.attn_drop(scores.softmax(dim=-1)) @ v
        y = self.norm(y.transpose(1, 2).reshape(b, n, self.attn_dim))
        return self.proj_drop(self.proj(y))


torch.manual_seed(0)
attn = Attention(32, num_heads=4, qkv_bias=True)
