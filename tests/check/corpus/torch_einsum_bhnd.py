"""Correct (torch): lucidrains-style. einsum over (b, h, n, d), a boolean keep mask filled
with the dtype's most negative value."""

import torch
from torch import einsum


def attend(q, k, v, mask=None):
    scale = q.shape[-1] ** -0.5
    sim = einsum("b h i d, b h j d -> b h i j", q, k) * scale
    if mask is not None:
        sim = sim.masked_fill(~mask, -torch.finfo(sim.dtype).max)
    attn = sim.softmax(dim=-1)
    return einsum("b h i j, b h j d -> b h i d", attn, v)
