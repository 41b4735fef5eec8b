"""Correct (torch): nanochat's CausalSelfAttention, written after it: `c_q`, `c_k`, `c_v` with
fewer k, v heads (GQA), rotary embeddings handed in as a `cos_sin` pair (halves rotated, not
pairs), QK-norm by a weightless F.rms_norm after the rotation, a value embedding `ve` mixed
in by a gate when given, and attention through flash_attn_func(q, k, v, causal=True,
window_size=(left, 0)), whose SDPA fallback is written out here; `c_proj`, then a per-channel
`c_proj_scalar` (zero at init, set to 1 here as after training it is not 0).

Known miss (issue 47, eighth round): exits 2. The trace runs the layer with None for every
argument it requires, and `cos, sin = cos_sin` fails on None; its maps (`c_q`, `c_k`, `c_v`)
are under no name the checker reads, so no projections are found and it is tried as a kernel.
A (cos, sin) pair of (1, n, 1, head_size / 2) is no form the rotation stand-in makes either.

after: karpathy/nanochat nanochat/gpt.py
commit: e28d4ead22c6b9d1238042c81db12e1e5760c438
licence: MIT
target: attn
expected: error
"""

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn


@dataclass
class GPTConfig:
    sequence_len: int = 64
    n_layer: int = 2
    n_head: int = 4
    n_kv_head: int = 2
    n_embd: int = 32


def norm(x):
    return F.rms_norm(x, (x.size(-1),))


def apply_rotary_emb(x, cos, sin):
    d = x.shape[3] // 2
    x1, x2 = x[..., :d], x[..., d:]
    return torch.cat([x1 * cos + x2 * sin, x1 * (-sin) + x2 * cos], 3)


def flash_attn_func(q, k, v, causal, window_size):
    """(B, T, H, D) in and out, as FA3; the SDPA fallback with its sliding window."""
    q, k, v = (t.transpose(1, 2) for t in (q, k, v))
    n, left = q.size(2), window_size[0]
    i = torch.arange(n)
    keep = i[None, :] <= i[:, None] if causal else torch.ones(n, n, dtype=torch.bool)
    if left >= 0:
        keep = keep & (i[:, None] - i[None, :] <= left)
    y = F.scaled_dot_product_attention(q, k, v, attn_mask=keep, enable_gqa=True)
    return y.transpose(1, 2)


class CausalSelfAttention(nn.Module):
    def __init__(self, config, layer_idx):
        super().__init__()
        self.layer_idx = layer_idx
        self.n_head, self.n_kv_head, self.n_embd = config.n_head, config.n_kv_head, config.n_embd
        self.head_dim = self.n_embd // self.n_head
        self.c_q = nn.Linear(self.n_embd, self.n_head * self.head_dim, bias=False)
        self.c_k = nn.Linear(self.n_embd, self.n_kv_head * self.head_dim, bias=False)
        self.c_v = nn.Linear(self.n_embd, self.n_kv_head * self.head_dim, bias=False)
        self.c_proj = nn.Linear(self.n_embd, self.n_embd, bias=False)
        self.c_proj_scalar = nn.Parameter(torch.zeros(config.n_embd))

    def forward(self, x, ve, cos_sin, window_size, kv_cache):
        B, T, _ = x.size()
        q = self.c_q(x).view(B, T, self.n_head, self.head_dim)
        k = self.c_k(x).view(B, T, self.n_kv_head, self.head_dim)
        v = self.c_v(x).view(B, T, self.n_kv_head, self.head_dim)
        if ve is not None:
            v = v + ve.view(B, T, self.n_kv_head, self.head_dim)
        cos, sin = cos_sin
        q, k = apply_rotary_emb(q, cos, sin), apply_rotary_emb(k, cos, sin)
        q, k = norm(q), norm(k)
        y = flash_attn_func(q, k, v, causal=True, window_size=window_size)
        y = self.c_proj(y.contiguous().view(B, T, -1))
        return y * self.c_proj_scalar


torch.manual_seed(0)
attn = CausalSelfAttention(GPTConfig(), 1)
with torch.no_grad():
    attn.c_proj_scalar.fill_(1.0)
