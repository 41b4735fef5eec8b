"""Correct (torch): DALL-E's (lucidrains/DALLE-pytorch) dense Attention, written after it: causal
by an attribute (`causal`, True by default), which builds its own triangle from the scores'
shape (`triu` from j - i + 1, so a cached query block sees all keys before it); one map
`to_qkv` without bias split in three, (b, heads, n, dim_head); q multiplied by
dim_head**-0.5 first; a boolean key mask (b, n) and the triangle filled with the lowest finite
value; an optional `stable` softmax (scores divided by 32**2, the max taken off, multiplied
back); `to_out` a Sequential of a Linear and a Dropout. The rotation and the cache it also
takes are not given by the check (None).

after: lucidrains/DALLE-pytorch dalle_pytorch/attention.py
commit: 58c1e1a4fef10725a79bd45cdb5581c03e3e59e7
licence: MIT
target: attn
expected: ok
"""

import torch
from torch import nn


def stable_softmax(t, dim=-1, alpha=32**2):
    t = t / alpha
    return ((t - t.amax(dim=dim, keepdim=True).detach()) * alpha).softmax(dim=dim)


class Attention(nn.Module):
    def __init__(self, dim, seq_len, causal=True, heads=8, dim_head=64, dropout=0.0, stable=False):
        super().__init__()
        self.heads, self.seq_len, self.scale = heads, seq_len, dim_head**-0.5
        self.causal, self.stable = causal, stable
        self.to_qkv = nn.Linear(dim, 3 * heads * dim_head, bias=False)
        self.to_out = nn.Sequential(nn.Linear(heads * dim_head, dim), nn.Dropout(dropout))

    def forward(self, x, mask=None, rotary_pos_emb=None, cache=None, cache_key=None):
        if rotary_pos_emb is not None:
            raise NotImplementedError("the rotation is not part of this case")
        offset = cache.get("offset", 0) if cache is not None else 0
        q, k, v = (
            t.unflatten(-1, (self.heads, -1)).transpose(1, 2) for t in self.to_qkv(x).chunk(3, -1)
        )
        q = q * self.scale
        if offset > 0:
            k_before, v_before = cache[cache_key]
            k, v = torch.cat([k_before, k], dim=-2), torch.cat([v_before, v], dim=-2)
        if cache is not None:
            cache[cache_key] = k, v
        dots = torch.einsum("bhid,bhjd->bhij", q, k)
        lowest = -torch.finfo(dots.dtype).max
        if mask is not None:
            dots = dots.masked_fill(~mask[:, None, None, :], lowest)
        if self.causal and offset == 0:
            i, j = dots.shape[-2:]
            dots = dots.masked_fill(torch.ones(i, j).triu(j - i + 1).bool(), lowest)
        w = stable_softmax(dots) if self.stable else dots.softmax(dim=-1)
        out = torch.einsum("bhij,bhjd->bhid", w, v)
        return self.to_out(out.transpose(1, 2).flatten(2))


torch.manual_seed(0)
attn = Attention(32, seq_len=64, causal=True, heads=4, dim_head=8)
