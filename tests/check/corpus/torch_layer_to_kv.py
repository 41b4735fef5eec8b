"""Queries from x, and keys with values from one map: `to_q` and `to_kv` (k's columns first,
split with chunk), as lucidrains' layers are written (there with einops; here reshape, so
the case needs torch alone). `attn` is correct; `attn_by_dim` keeps `dim ** -0.5`, the model
width, as its scale."""

import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim, heads=2, dim_head=8, scale_by_dim=False):
        super().__init__()
        inner = heads * dim_head
        self.heads = heads
        self.scale = (dim if scale_by_dim else dim_head) ** -0.5
        self.to_q = nn.Linear(dim, inner, bias=False)
        self.to_kv = nn.Linear(dim, inner * 2, bias=False)
        self.to_out = nn.Sequential(nn.Linear(inner, dim), nn.Dropout(0.0))

    def split_heads(self, t):
        b, n, _ = t.shape
        return t.reshape(b, n, self.heads, -1).transpose(1, 2)

    def forward(self, x, context=None):
        context = x if context is None else context
        q, (k, v) = self.to_q(x), self.to_kv(context).chunk(2, dim=-1)
        q, k, v = map(self.split_heads, (q, k, v))
        attn = (q @ k.transpose(-1, -2) * self.scale).softmax(dim=-1)
        out = (attn @ v).transpose(1, 2)
        return self.to_out(out.reshape(*out.shape[:2], -1))


torch.manual_seed(0)
attn = Attention(32)
attn_by_dim = Attention(32, scale_by_dim=True)
