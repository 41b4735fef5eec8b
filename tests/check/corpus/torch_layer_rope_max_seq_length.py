"""Correct (torch): a causal layer written as lit-llama's is, which besides its rotation cache
`rope` (n, head_size / 2, 2) and the mask its model slices for it requires `max_seq_length`,
the bound on positions its key-value cache is sized for, and takes `input_pos` for decoding.
The cache is found by shape as before; `max_seq_length` is found as an integer that bounds
the positions (here the length itself), a positions tensor failing where it is a bound. The
layer is then checked causal through the boolean mask. Before, the check exited 2 asking for
`max_seq_length`."""

import torch
import torch.nn.functional as F
from torch import nn


def apply_rope(x, rope_cache):
    T = x.size(1)
    rope_cache = rope_cache[:T]
    xs = x.float().reshape(*x.shape[:-1], -1, 2)
    rope_cache = rope_cache.view(1, T, 1, xs.size(3), 2)
    turned = torch.stack(
        [
            xs[..., 0] * rope_cache[..., 0] - xs[..., 1] * rope_cache[..., 1],
            xs[..., 1] * rope_cache[..., 0] + xs[..., 0] * rope_cache[..., 1],
        ],
        -1,
    )
    return turned.flatten(3).type_as(x)


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd=32, n_head=4, block_size=64):
        super().__init__()
        self.c_attn = nn.Linear(n_embd, 3 * n_embd, bias=False)
        self.c_proj = nn.Linear(n_embd, n_embd, bias=False)
        self.n_head = n_head
        self.n_embd = n_embd
        self.block_size = block_size

    def forward(self, x, rope, mask, max_seq_length, input_pos=None, kv_cache=None):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        head_size = C // self.n_head
        q, k, v = (t.view(B, T, self.n_head, head_size) for t in (q, k, v))
        q, k = apply_rope(q, rope), apply_rope(k, rope)
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))
        if kv_cache is not None:
            cache_k, cache_v = kv_cache
            if input_pos[-1] >= max_seq_length:  # roll the cache back by one
                input_pos = torch.tensor(max_seq_length - 1, device=input_pos.device)
                cache_k, cache_v = torch.roll(cache_k, -1, dims=2), torch.roll(cache_v, -1, dims=2)
            k = cache_k.index_copy(2, input_pos, k)
            v = cache_v.index_copy(2, input_pos, v)
            kv_cache = k, v
        if max_seq_length < T:
            raise ValueError(f"cannot attend over {T} tokens, the cache holds {max_seq_length}")
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=0.0)
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y), kv_cache


torch.manual_seed(0)
attn = CausalSelfAttention()
