"""Correct (torch): a causal layer written as lit-llama's is, which takes its rotation as an
argument named `rope`, a cache of (n, head_size / 2, 2), cos and sin in a last axis of two,
under a name no table holds. The argument is found as the one the layer cannot be called
without, handed cos 1 and sin 0 in the form the call takes, and the layer checked as attention
without positions. Before, the check exited 2 asking for `rope`."""

import torch
import torch.nn.functional as F
from torch import nn


def apply_rope(x, rope_cache):
    T = x.size(2)
    rope_cache = rope_cache[:T]
    xshaped = x.float().reshape(*x.shape[:-1], -1, 2)
    rope_cache = rope_cache.view(1, 1, T, xshaped.size(3), 2)
    x_out = torch.stack(
        [
            xshaped[..., 0] * rope_cache[..., 0] - xshaped[..., 1] * rope_cache[..., 1],
            xshaped[..., 1] * rope_cache[..., 0] + xshaped[..., 0] * rope_cache[..., 1],
        ],
        -1,
    )
    return x_out.flatten(3).type_as(x)


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd=32, n_head=4):
        super().__init__()
        self.c_attn = nn.Linear(n_embd, 3 * n_embd, bias=False)
        self.c_proj = nn.Linear(n_embd, n_embd, bias=False)
        self.n_head = n_head
        self.n_embd = n_embd

    def forward(self, x, rope):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        q, k, v = (t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) for t in (q, k, v))
        q, k = apply_rope(q, rope), apply_rope(k, rope)
        y = self.attend(q, k, v)
        return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))

    def attend(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)


torch.manual_seed(0)
attn = CausalSelfAttention()
