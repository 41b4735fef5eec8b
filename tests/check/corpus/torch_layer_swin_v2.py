"""Correct (torch): Swin Transformer V2's WindowAttention, scaled cosine attention: q and k
normalised, their cosine times a logit scale learned per head (clamped at log 100, then
exponentiated), `qkv` applied with F.linear(input=..., weight=..., bias=...) and a bias
made of `q_bias`, zeros and `v_bias`, `proj` out. The heads' scales differ, as after training.

Condensed: the continuous relative position bias (`cpb_mlp`, a learned function of the
offsets inside a window, 16 * sigmoid) and the shifted windows' mask are left out; positions
are not what the check reads.

repository: microsoft/Swin-Transformer
path: models/swin_transformer_v2.py
commit: f82860bfb5225915aca09c3227159ee9e1df874d
licence: MIT
target: attn
expected: ok
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class WindowAttention(nn.Module):
    def __init__(self, dim, num_heads, qkv_bias=True, attn_drop=0.0, proj_drop=0.0):
        super().__init__()
        self.dim = dim
        self.num_heads = num_heads
        self.logit_scale = nn.Parameter(
            torch.log(10 * torch.ones((num_heads, 1, 1))), requires_grad=True
        )
        self.qkv = nn.Linear(dim, dim * 3, bias=False)
        if qkv_bias:
            self.q_bias = nn.Parameter(torch.zeros(dim))
            self.v_bias = nn.Parameter(torch.zeros(dim))
        else:
            self.q_bias = None
            self.v_bias = None
        self.attn_drop = nn.Dropout(attn_drop)
        self.proj = nn.Linear(dim, dim)
        self.proj_drop = nn.Dropout(proj_drop)
        self.softmax = nn.Softmax(dim=-1)

    def forward(self, x, mask=None):
        B_, N, C = x.shape
        qkv_bias = None
        if self.q_bias is not None:
            qkv_bias = torch.cat(
                (self.q_bias, torch.zeros_like(self.v_bias, requires_grad=False), self.v_bias)
            )
        qkv = F.linear(input=x, weight=self.qkv.weight, bias=qkv_bias)
        qkv = qkv.reshape(B_, N, 3, self.num_heads, -1).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]

        # cosine attention
        attn = F.normalize(q, dim=-1) @ F.normalize(k, dim=-1).transpose(-2, -1)
        logit_scale = torch.clamp(self.logit_scale, max=torch.log(torch.tensor(1.0 / 0.01))).exp()
        attn = attn * logit_scale

        if mask is not None:
            nW = mask.shape[0]
            attn = attn.view(B_ // nW, nW, self.num_heads, N, N) + mask.unsqueeze(1).unsqueeze(0)
            attn = attn.view(-1, self.num_heads, N, N)
            attn = self.softmax(attn)
        else:
            attn = self.softmax(attn)

        attn = self.attn_drop(attn)

        x = (attn @ v).transpose(1, 2).reshape(B_, N, C)
        x = self.proj(x)
        x = self.proj_drop(x)
        return x


torch.manual_seed(0)
attn = WindowAttention(32, num_heads=4)
with torch.no_grad():  # trained: each head its own temperature, the biases not 0
    attn.logit_scale.copy_(torch.log(torch.tensor([4.0, 10.0, 25.0, 60.0])).view(4, 1, 1))
    attn.q_bias.normal_(0.0, 0.1)
    attn.v_bias.normal_(0.0, 0.1)
