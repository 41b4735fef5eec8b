"""Buggy (torch): lucidrains/local-attention's LocalAttention, written after it, with what it
does when `autopad=True` and not causal: q, k and v are padded with zeros to a whole number of
windows, and only a `mask` passed by the caller is padded to hide them, so with no mask every
query also weighs the zero keys (score 0, value 0) and its output shrinks. (Causal, the padded
keys sit after every real query and are masked.) Found by `selfattn check` on the real file
(buggy weights-not-normalized); no issue about it was found.

Its conventions: attn(q, k, v, mask=None, input_mask=None, attn_bias=None, window_size=None)
on (..., n, d), the leading axes packed into one; blocks of `window_size` positions, each
query block seeing its own block and `look_backward` blocks before it (`look_forward` after,
one by default when not causal), the out-of-range ones padded with position -1 and masked;
q scaled by d**-0.5 (or `scale`); a boolean key mask; einsum products; masked with minus the
largest finite value. Rotary embeddings (when given `dim`) are left out here.

after: lucidrains/local-attention local_attention/local_attention.py
commit: af58e53f81e5e1d87a7d50cb193d5c26f3c0e03f
licence: MIT
target: attn
expected: buggy weights-not-normalized
"""

import torch
import torch.nn.functional as F
from torch import nn


def look_around(x, backward=1, forward=0, pad_value=-1, dim=2):
    """Each block beside the `backward` blocks before it and `forward` after (axis 1: blocks)."""
    padded = F.pad(x, (*(0, 0) * (x.ndim - dim), backward, forward), value=pad_value)
    return padded.unfold(1, backward + forward + 1, 1).movedim(-1, dim).flatten(dim, dim + 1)


class LocalAttention(nn.Module):
    def __init__(self, window_size, causal=False, look_backward=1, look_forward=None, dropout=0.0,
                 autopad=False, exact_windowsize=False, scale=None):  # fmt: skip
        super().__init__()
        self.look_forward = (0 if causal else 1) if look_forward is None else look_forward
        self.window_size, self.causal, self.look_backward = window_size, causal, look_backward
        self.autopad, self.exact_windowsize, self.scale = autopad, exact_windowsize, scale
        self.dropout = nn.Dropout(dropout)

    def forward(self, q, k, v, mask=None, input_mask=None, attn_bias=None, window_size=None):
        mask = input_mask if mask is None else mask
        shape, w = q.shape, self.window_size
        q, k, v = (t.reshape(-1, *t.shape[-2:]) for t in (q, k, v))
        n0 = q.shape[1]
        if self.autopad and n0 % w:  # the bug: these zero keys are masked only via `mask`
            q, k, v = (F.pad(t, (0, 0, 0, -n0 % w)) for t in (q, k, v))
        b, n, d = q.shape
        around = dict(backward=self.look_backward, forward=self.look_forward, pad_value=-1)
        pos = torch.arange(n, device=q.device).view(1, n // w, w)
        bq = q.view(b, n // w, w, d) * (self.scale or d**-0.5)
        bk, bv = (look_around(t.view(b, n // w, w, d), **around) for t in (k, v))
        pq, pk = pos[..., :, None], look_around(pos, **around)[..., None, :]
        sim = torch.einsum("bwid,bwjd->bwij", bq, bk)
        if attn_bias is not None:
            sim = sim + attn_bias.repeat(b // attn_bias.shape[0], 1, 1)[:, None]
        lowest = -torch.finfo(sim.dtype).max
        hide = pk == -1
        if self.causal:
            hide = hide | (pq < pk)
        if self.exact_windowsize:
            hide = hide | (pq > pk + w * self.look_backward)
            hide = hide | (pk - w * self.look_forward > pq) if not self.causal else hide
        sim = sim.masked_fill(hide, lowest)
        if mask is not None:
            keep = F.pad(mask, (0, n - mask.shape[-1]), value=False).reshape(-1, n // w, w)
            keep = look_around(keep, **{**around, "pad_value": False})[..., None, :]
            sim = sim.masked_fill(~keep.repeat_interleave(b // keep.shape[0], 0), lowest)
        attn = self.dropout(sim.softmax(dim=-1))
        out = torch.einsum("bwij,bwjd->bwid", attn, bv).reshape(b, n, d)[:, :n0]
        return out.reshape(*shape[:-1], out.shape[-1])


attn = LocalAttention(window_size=64, autopad=True)
