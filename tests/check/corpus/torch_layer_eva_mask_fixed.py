"""Correct (torch): torch_layer_eva_mask_after_softmax.py with the key mask applied before the
softmax, as huggingface/pytorch-image-models#2236 fixed it. The mask is a (B, N) key mask, so no
causal mask handed to it hides the future: checked without one.

after: huggingface/pytorch-image-models timm/models/eva.py
commit: 7479d451a6dfd8af27f941b8e82a7402461fae80
licence: Apache-2.0
target: attn
expected: ok
"""

import torch
from torch import nn
from torch.nn import functional as F


class EvaAttention(nn.Module):
    def __init__(self, dim, num_heads=8, qkv_bias=True, attn_drop=0.0, proj_drop=0.0):
        super().__init__()
        self.num_heads = num_heads
        head_dim = dim // num_heads
        self.scale = head_dim**-0.5
        self.qkv = nn.Linear(dim, dim * 3, bias=False)
        self.q_bias = nn.Parameter(torch.zeros(dim)) if qkv_bias else None
        self.register_buffer("k_bias", torch.zeros(dim), persistent=False)
        self.v_bias = nn.Parameter(torch.zeros(dim)) if qkv_bias else None
        self.attn_drop = nn.Dropout(attn_drop)
        self.proj = nn.Linear(dim, dim)
        self.proj_drop = nn.Dropout(proj_drop)

    def forward(self, x, rope=None, attn_mask=None):
        B, N, C = x.shape
        bias = (
            torch.cat((self.q_bias, self.k_bias, self.v_bias)) if self.q_bias is not None else None
        )
        qkv = F.linear(x, self.qkv.weight, bias).reshape(B, N, 3, self.num_heads, -1)
        q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)
        attn = (q * self.scale) @ k.transpose(-2, -1)
        if attn_mask is not None:
            attn = attn.masked_fill(~attn_mask.to(torch.bool)[:, None, None, :], float("-inf"))
        attn = attn.softmax(dim=-1)
        x = (self.attn_drop(attn) @ v).transpose(1, 2).reshape(B, N, C)
        return self.proj_drop(self.proj(x))


torch.manual_seed(0)
attn = EvaAttention(32, num_heads=4)
with torch.no_grad():
    attn.q_bias.normal_(0, 0.2)
    attn.v_bias.normal_(0, 0.2)
