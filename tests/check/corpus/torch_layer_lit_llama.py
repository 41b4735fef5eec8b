"""Correct (torch): lit-llama's CausalSelfAttention, written after it: a fused `c_attn` split
into q, k, v, RoPE from a `rope` cache of (block_size, head_size // 2, 2) cos and sin pairs,
F.scaled_dot_product_attention with the model's boolean `mask` (True = may attend, cut to
(1, 1, T, T) by the model), and a required `max_seq_length` with optional `input_pos` and
`kv_cache` for generation; it returns (y, kv_cache).

after: Lightning-AI/lit-llama lit_llama/model.py
commit: b05b0bb8482655235cb8321370357df2ed9c3c38
licence: Apache-2.0
target: attn
expected: ok
"""

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn


@dataclass
class LLaMAConfig:
    block_size: int = 64
    n_head: int = 4
    n_embd: int = 32


def apply_rope(x, rope_cache):
    T = x.size(1)
    rope_cache = rope_cache[:T]
    xshaped = x.float().reshape(*x.shape[:-1], -1, 2)
    rope_cache = rope_cache.view(1, xshaped.size(1), 1, xshaped.size(3), 2)
    x_out2 = torch.stack(
        [
            xshaped[..., 0] * rope_cache[..., 0] - xshaped[..., 1] * rope_cache[..., 1],
            xshaped[..., 1] * rope_cache[..., 0] + xshaped[..., 0] * rope_cache[..., 1],
        ],
        -1,
    )
    return x_out2.flatten(3).type_as(x)


class CausalSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd, bias=False)
        self.c_proj = nn.Linear(config.n_embd, config.n_embd, bias=False)
        self.n_head, self.n_embd, self.block_size = config.n_head, config.n_embd, config.block_size

    def forward(self, x, rope, mask, max_seq_length, input_pos=None, kv_cache=None):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        head_size = C // self.n_head
        q = apply_rope(q.view(B, T, self.n_head, head_size), rope).transpose(1, 2)
        k = apply_rope(k.view(B, T, self.n_head, head_size), rope).transpose(1, 2)
        v = v.view(B, T, self.n_head, head_size).transpose(1, 2)
        if kv_cache is not None:
            cache_k, cache_v = kv_cache
            if input_pos[-1] >= max_seq_length:
                input_pos = torch.tensor(max_seq_length - 1, device=input_pos.device)
                cache_k = torch.roll(cache_k, -1, dims=2)
                cache_v = torch.roll(cache_v, -1, dims=2)
            k = cache_k.index_copy(2, input_pos, k)
            v = cache_v.index_copy(2, input_pos, v)
            kv_cache = k, v
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=0.0)
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y), kv_cache


torch.manual_seed(0)
attn = CausalSelfAttention(LLaMAConfig())
