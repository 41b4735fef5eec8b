"""Correct (torch): diffusers' Attention with its default AttnProcessor2_0, written after it,
built as a VAE's mid-block uses it: called as attn(hidden_states, encoder_hidden_states=None,
attention_mask=None, **cross_attention_kwargs), self-attention without a context; hidden
states (B, n, C), or an image (B, C, H, W) read as (B, H * W, C) and turned back; a GroupNorm
held as `group_norm`, applied to the states turned to (B, C, n); `to_q`, `to_k`, `to_v` and
`to_out`, a ModuleList of a Linear and a Dropout; heads as (B, heads, n, dim_head) into
F.scaled_dot_product_attention; the input added back (`residual_connection`) and the sum
divided by `rescale_output_factor`. Our own code, of the parts this configuration runs.

after: huggingface/diffusers src/diffusers/models/attention_processor.py
commit: 58eb52c0803ea9af3abec60841c2a093bdf1f951
licence: Apache-2.0
target: attn
expected: ok
"""

import torch
import torch.nn.functional as F
from torch import nn


class AttnProcessor2_0:
    def __call__(self, attn, hidden_states, encoder_hidden_states=None, attention_mask=None):
        residual = hidden_states
        image = hidden_states.ndim == 4
        if image:
            b, c, h, w = hidden_states.shape
            hidden_states = hidden_states.view(b, c, h * w).transpose(1, 2)
        if attn.group_norm is not None:
            hidden_states = attn.group_norm(hidden_states.transpose(1, 2)).transpose(1, 2)
        context = hidden_states if encoder_hidden_states is None else encoder_hidden_states
        q, k, v = attn.to_q(hidden_states), attn.to_k(context), attn.to_v(context)
        q, k, v = (t.unflatten(-1, (attn.heads, -1)).transpose(1, 2) for t in (q, k, v))
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=attention_mask, dropout_p=0.0)
        out = attn.to_out[1](attn.to_out[0](out.transpose(1, 2).flatten(2).to(q.dtype)))
        if image:
            out = out.transpose(-1, -2).reshape(b, c, h, w)
        if attn.residual_connection:
            out = out + residual
        return out / attn.rescale_output_factor


class Attention(nn.Module):
    def __init__(self, query_dim, cross_attention_dim=None, heads=8, dim_head=64, dropout=0.0,
                 bias=False, norm_num_groups=None, out_bias=True, eps=1e-5,
                 rescale_output_factor=1.0, residual_connection=False):  # fmt: skip
        super().__init__()
        inner = dim_head * heads
        context_dim = cross_attention_dim or query_dim
        self.heads, self.scale = heads, dim_head**-0.5
        self.rescale_output_factor = rescale_output_factor
        self.residual_connection = residual_connection
        self.group_norm = (
            nn.GroupNorm(norm_num_groups, query_dim, eps=eps) if norm_num_groups else None
        )
        self.to_q = nn.Linear(query_dim, inner, bias=bias)
        self.to_k = nn.Linear(context_dim, inner, bias=bias)
        self.to_v = nn.Linear(context_dim, inner, bias=bias)
        self.to_out = nn.ModuleList(
            [nn.Linear(inner, query_dim, bias=out_bias), nn.Dropout(dropout)]
        )
        self.processor = AttnProcessor2_0()

    def forward(self, hidden_states, encoder_hidden_states=None, attention_mask=None, **kwargs):
        return self.processor(self, hidden_states, encoder_hidden_states, attention_mask)


torch.manual_seed(0)
attn = Attention(32, heads=4, dim_head=8, bias=True, norm_num_groups=8, eps=1e-6,
                 residual_connection=True)  # fmt: skip
