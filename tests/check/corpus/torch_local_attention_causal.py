"""Correct (torch): lucidrains/local-attention's LocalAttention, written after it as it runs with
`causal=True`: the sequence cut into blocks of `window_size` positions, each query block seeing
its own block and the `look_backward` blocks before it, and within them no key after the query.
A short window on a longer input: issue 32's sliding-window attention, found by probing.

Its conventions: attn(q, k, v, mask=None) on (..., n, d), the leading axes packed into one;
`autopad` pads q, k and v with zeros to a whole number of blocks (every padded key comes after
every real query, so causality hides it); the blocks before the first are filled with position
-1 and hidden; q scaled by d**-0.5; einsum products; masked with minus the largest finite value;
a boolean key mask (True = may attend) padded and looked around like the keys. Dropout, shared
q and k, and rotary embeddings are left out here.

after: lucidrains/local-attention local_attention/local_attention.py
commit: af58e53f81e5e1d87a7d50cb193d5c26f3c0e03f
licence: MIT
target: attn
expected: ok
"""

import torch
import torch.nn.functional as F
from torch import nn


def blocks_before(t, back, fill):
    """(b, blocks, w, ...) -> (b, blocks, (back + 1) * w, ...): each block after `back` before it."""
    pad = (0, 0) * (t.ndim - 2)
    earlier = [F.pad(t, (*pad, s, 0), value=fill)[:, : t.shape[1]] for s in range(back, 0, -1)]
    return torch.cat([*earlier, t], dim=2)


class LocalAttention(nn.Module):
    def __init__(self, window_size, look_backward=1, autopad=True):
        super().__init__()
        self.window_size, self.look_backward, self.autopad = window_size, look_backward, autopad

    def forward(self, q, k, v, mask=None):
        shape, w, back = q.shape, self.window_size, self.look_backward
        q, k, v = (t.reshape(-1, *t.shape[-2:]) for t in (q, k, v))
        n0 = q.shape[1]
        if self.autopad:
            q, k, v = (F.pad(t, (0, 0, 0, -n0 % w)) for t in (q, k, v))
        b, n, d = q.shape
        at = torch.arange(n, device=q.device).view(1, n // w, w)
        bq = q.view(b, n // w, w, d) * d**-0.5
        bk, bv = (blocks_before(t.view(b, n // w, w, d), back, 0.0) for t in (k, v))
        seen = blocks_before(at, back, -1)[..., None, :]
        hide = (seen == -1) | (at[..., :, None] < seen)
        if mask is not None:
            keep = F.pad(mask, (0, n - mask.shape[-1]), value=False).view(-1, n // w, w)
            keep = blocks_before(keep, back, False).repeat_interleave(b // keep.shape[0], 0)
            hide = hide | ~keep[..., None, :]
        sim = torch.einsum("bwid,bwjd->bwij", bq, bk)
        sim = sim.masked_fill(hide, -torch.finfo(sim.dtype).max)
        out = torch.einsum("bwij,bwjd->bwid", sim.softmax(dim=-1), bv).reshape(b, n, d)[:, :n0]
        return out.reshape(*shape[:-1], d)


attn = LocalAttention(window_size=4)
