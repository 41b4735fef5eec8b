"""Correct (torch): LitGPT's CausalSelfAttention, written after it: the head counts live on the
`config` the layer holds (`config.n_head`, `config.n_query_groups` k, v heads,
`config.head_size`), not on the layer; one fused map `qkv` laid out [q | k | v] with fewer k, v
heads than q heads; the rotation handed in as two arguments, `cos` and `sin` of shape
(1, n, rope_n_elem), applied rotate-half to the first `rope_n_elem` dimensions of each head only
(a quarter of them by default, as Pythia does); SDPA with `is_causal` when no mask is given;
the map out `proj`. Exit 2 before: no head count was found and x, cos, sin were read as q, k, v.

after: Lightning-AI/litgpt litgpt/model.py
after: Lightning-AI/litgpt litgpt/config.py
commit: 26857050fe3ff627cd714fe92f5838f51a3d5efa
licence: Apache-2.0
target: attn
expected: ok
"""

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn


@dataclass
class Config:
    n_embd: int = 32
    n_head: int = 4
    n_query_groups: int = 2
    rotary_percentage: float = 0.25

    @property
    def head_size(self) -> int:
        return self.n_embd // self.n_head

    @property
    def rope_n_elem(self) -> int:
        return int(self.rotary_percentage * self.head_size)


def rotate(x, cos, sin):
    half = x.size(-1) // 2
    turned = torch.cat((-x[..., half:], x[..., :half]), dim=-1)
    return x * cos[:, None] + turned * sin[:, None]


class CausalSelfAttention(nn.Module):
    def __init__(self, config: Config, block_idx: int) -> None:
        super().__init__()
        width = (config.n_head + 2 * config.n_query_groups) * config.head_size
        self.qkv = nn.Linear(config.n_embd, width, bias=True)
        self.proj = nn.Linear(config.n_head * config.head_size, config.n_embd, bias=True)
        self.config, self.block_idx = config, block_idx

    def forward(self, x, cos, sin, mask=None, input_pos=None):
        B, T, _ = x.shape
        c = self.config
        sizes = (
            c.n_head * c.head_size,
            c.n_query_groups * c.head_size,
            c.n_query_groups * c.head_size,
        )
        q, k, v = self.qkv(x).split(sizes, dim=-1)
        q = q.view(B, T, c.n_head, c.head_size).transpose(1, 2)
        k = k.view(B, T, c.n_query_groups, c.head_size).transpose(1, 2)
        v = v.view(B, T, c.n_query_groups, c.head_size).transpose(1, 2)
        r = c.rope_n_elem
        q = torch.cat((rotate(q[..., :r], cos, sin), q[..., r:]), dim=-1)
        k = torch.cat((rotate(k[..., :r], cos, sin), k[..., r:]), dim=-1)
        k = k.repeat_interleave(c.n_head // c.n_query_groups, dim=1)
        v = v.repeat_interleave(c.n_head // c.n_query_groups, dim=1)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=mask is None)
        return self.proj(y.transpose(1, 2).reshape(B, T, -1))


torch.manual_seed(0)
attn = CausalSelfAttention(Config(), 0)
