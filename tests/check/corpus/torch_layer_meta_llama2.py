"""Correct (torch): Meta's Llama 2 Attention (meta-llama/llama), written after it: called as
attn(x, start_pos, freqs_cis, mask), every argument required; maps `wq`, `wk`, `wv`, `wo`
without bias (fairscale's column- and row-parallel Linears, plain Linears on one process);
grouped-query attention, `n_kv_heads` below `n_heads`, each k, v head repeated n_rep times
(`repeat_kv`) after the cache; q and k rotated as complex numbers by `freqs_cis`; k and v
written into caches of (max_batch_size, max_seq_len, n_kv_heads, head_dim) at start_pos and
read back up to start_pos + n; scores over sqrt(head_dim), an additive mask, the softmax in
float32 cast back. Our own code; the published one moves its caches to CUDA when built.

after: meta-llama/llama llama/model.py
commit: 689c7f261b9c5514636ecc3c5fefefcbb3e6eed7
licence: Llama 2 Community License (the repository's)
target: attn
expected: ok
"""

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn


@dataclass
class ModelArgs:
    dim: int = 4096
    n_heads: int = 32
    n_kv_heads: int | None = None
    max_batch_size: int = 32
    max_seq_len: int = 2048


def rotate(x, freqs_cis):  # (b, n, h, d) as d / 2 complex numbers, times (n, d / 2)
    z = torch.view_as_complex(x.float().unflatten(-1, (-1, 2)))
    return torch.view_as_real(z * freqs_cis[None, :, None]).flatten(3).type_as(x)


def repeat_kv(x, n_rep):  # (b, n, kv_heads, d) -> (b, n, kv_heads * n_rep, d)
    return x if n_rep == 1 else x.repeat_interleave(n_rep, dim=2)


class Attention(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.n_local_heads = args.n_heads
        self.n_local_kv_heads = args.n_kv_heads or args.n_heads
        self.n_rep = self.n_local_heads // self.n_local_kv_heads
        self.head_dim = args.dim // args.n_heads
        kv = self.n_local_kv_heads * self.head_dim
        self.wq = nn.Linear(args.dim, args.n_heads * self.head_dim, bias=False)
        self.wk = nn.Linear(args.dim, kv, bias=False)
        self.wv = nn.Linear(args.dim, kv, bias=False)
        self.wo = nn.Linear(args.n_heads * self.head_dim, args.dim, bias=False)
        shape = (args.max_batch_size, args.max_seq_len, self.n_local_kv_heads, self.head_dim)
        self.cache_k, self.cache_v = torch.zeros(shape), torch.zeros(shape)

    def forward(self, x, start_pos, freqs_cis, mask):
        b, n, _ = x.shape
        xq = self.wq(x).view(b, n, self.n_local_heads, self.head_dim)
        xk = self.wk(x).view(b, n, self.n_local_kv_heads, self.head_dim)
        xv = self.wv(x).view(b, n, self.n_local_kv_heads, self.head_dim)
        xq, xk = rotate(xq, freqs_cis), rotate(xk, freqs_cis)
        self.cache_k, self.cache_v = self.cache_k.to(xq), self.cache_v.to(xq)
        self.cache_k[:b, start_pos : start_pos + n] = xk
        self.cache_v[:b, start_pos : start_pos + n] = xv
        keys = repeat_kv(self.cache_k[:b, : start_pos + n], self.n_rep).transpose(1, 2)
        values = repeat_kv(self.cache_v[:b, : start_pos + n], self.n_rep).transpose(1, 2)
        scores = xq.transpose(1, 2) @ keys.transpose(2, 3) / math.sqrt(self.head_dim)
        if mask is not None:
            scores = scores + mask
        scores = F.softmax(scores.float(), dim=-1).type_as(xq)
        return self.wo((scores @ values).transpose(1, 2).reshape(b, n, -1))


torch.manual_seed(0)
attn = Attention(ModelArgs(dim=32, n_heads=4, n_kv_heads=2, max_batch_size=2, max_seq_len=64))
