"""Correct (torch): BEiT's Attention (microsoft/unilm), written after it without a window (no
relative position bias): one map `qkv` held without bias, its bias made at each call from
`q_bias`, zeros for k and `v_bias` and applied with F.linear; (3, B, heads, N, head_dim); q
times `scale` first; an optional `rel_pos_bias` added to the scores (the model's shared
relative position bias); `proj` out.

after: microsoft/unilm beit/modeling_finetune.py
commit: 768a3c873f598bb9b4d4dfb9267b099e35f8fe56
licence: MIT
target: attn
expected: ok
"""

import torch
import torch.nn.functional as F
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim, num_heads=8, qkv_bias=False, qk_scale=None, attn_drop=0.0):
        super().__init__()
        self.num_heads = num_heads
        self.scale = qk_scale or (dim // num_heads) ** -0.5
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.q_bias = nn.Parameter(torch.zeros(dim)) if qkv_bias else None
        self.v_bias = nn.Parameter(torch.zeros(dim)) if qkv_bias else None
        self.attn_drop = nn.Dropout(attn_drop)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, rel_pos_bias=None):
        b, n, _ = x.shape
        bias = None
        if self.q_bias is not None and self.v_bias is not None:
            bias = torch.cat((self.q_bias, torch.zeros_like(self.v_bias), self.v_bias))
        parts = F.linear(x, self.qkv.weight, bias).view(b, n, 3, self.num_heads, -1)
        q, k, v = parts.permute(2, 0, 3, 1, 4)
        scores = (q * self.scale) @ k.transpose(-2, -1)
        scores = scores if rel_pos_bias is None else scores + rel_pos_bias
        y = self.attn_drop(scores.softmax(dim=-1)) @ v
        return self.proj(y.transpose(1, 2).reshape(b, n, -1))


torch.manual_seed(0)
attn = Attention(32, num_heads=4, qkv_bias=True)
with torch.no_grad():  # zeros at the start of training; trained, they are not
    attn.q_bias.normal_(0.0, 0.1)
    attn.v_bias.normal_(0.0, 0.1)
