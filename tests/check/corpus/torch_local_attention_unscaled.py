"""Buggy (torch): lucidrains/local-attention's LocalAttention, written after it as it runs not
causal, each block of `window_size` queries seeing its own block, `look_backward` blocks before
it and `look_forward` after, with zero padding to a whole number of blocks hidden as it should
be; the bug is planted, not shipped: q is never multiplied by d**-0.5, so inside every window
the weights are softmax(q k^T) instead of softmax(q k^T / sqrt(d)).

Its conventions: attn(q, k, v, mask=None) on (..., n, d); `autopad` padding q, k and v with
zeros; a boolean key mask (True = may attend); einsum products; masked with minus the largest
finite value. Here which keys a query sees is written from block numbers over the whole
sequence, not by looking around blocks: the same keys, fewer lines.

after: lucidrains/local-attention local_attention/local_attention.py
commit: af58e53f81e5e1d87a7d50cb193d5c26f3c0e03f
licence: MIT
target: attn
expected: buggy scale-missing
"""

import torch
import torch.nn.functional as F
from torch import nn


class LocalAttention(nn.Module):
    def __init__(self, window_size, look_backward=1, look_forward=1):
        super().__init__()
        self.window_size, self.look_backward, self.look_forward = (
            window_size,
            look_backward,
            look_forward,
        )

    def forward(self, q, k, v, mask=None):
        n0, w = q.shape[-2], self.window_size
        q, k, v = (F.pad(t, (0, 0, 0, -n0 % w)) for t in (q, k, v))
        at = torch.arange(q.shape[-2], device=q.device)
        gap = at[None, :] // w - at[:, None] // w  # the key's block minus the query's
        hide = (gap < -self.look_backward) | (gap > self.look_forward) | (at >= n0)
        if mask is not None:
            hide = hide | ~F.pad(mask, (0, len(at) - n0), value=False)[..., None, :]
        sim = torch.einsum("...id,...jd->...ij", q, k)  # the bug: q not scaled by d**-0.5
        sim = sim.masked_fill(hide, -torch.finfo(sim.dtype).max)
        return torch.einsum("...ij,...jd->...id", sim.softmax(dim=-1), v)[..., :n0, :]


attn = LocalAttention(window_size=4)
