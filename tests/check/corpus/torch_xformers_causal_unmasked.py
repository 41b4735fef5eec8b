"""Buggy (torch): xFormers' ScaledDotProduct attention as it shipped before its fix, written
after it (facebookresearch/xformers#103, "Causal mask is skipped if no att_mask is passed";
fixed by #104, 1328ba7). A module called as attn(q, k, v, att_mask=None): made with
`causal=True`, it builds its causal mask only when given `seq_len`, and merges it only into a
mask passed to the call; the `causal` it hands on reaches only the Triton softmax used on a
GPU. So on a CPU, or with no `seq_len`, causal=True with no att_mask attends to the future.
A boolean att_mask keeps True and fills False with -inf; a float one is added; q is divided
by sqrt(d) before the product; dropout on the weights.

after: facebookresearch/xformers xformers/components/attention/scaled_dot_product.py
commit: 1c702fb154af3d735081f8853b2eb3fef3f692c0
licence: BSD-3-Clause
target: attn
expected: buggy causal-flag-ignored
"""

import math

import torch
from torch import nn


def _core(q, k, v, att_mask, dropout=None, causal=False):
    """The shared attention, as run without a GPU: `causal` goes unused here."""
    att = (q / math.sqrt(k.size(-1))) @ k.transpose(-2, -1)
    if att_mask is not None and att_mask.dtype == torch.bool:
        att = att.masked_fill(~att_mask, float("-inf"))
    elif att_mask is not None:
        att = att + att_mask
    att = att.softmax(dim=-1)
    return (att if dropout is None else dropout(att)) @ v


class ScaledDotProduct(nn.Module):
    def __init__(self, dropout=0.0, causal=False, seq_len=None, to_seq_len=None, *args, **kwargs):
        super().__init__()
        self.attn_drop = nn.Dropout(dropout)
        self.causal, self.seq_len = causal, seq_len
        self.mask = None
        if causal and seq_len is not None:
            future = torch.ones(seq_len, to_seq_len or seq_len).triu(1).bool()
            self.mask = torch.zeros(future.shape).masked_fill(future, float("-inf"))[None]

    def forward(self, q, k, v, att_mask=None, *args, **kwargs):
        if self.mask is not None and att_mask is not None:  # the bug: no att_mask, no mask
            if att_mask.dtype == torch.bool:
                att_mask = self.mask.masked_fill(~att_mask, float("-inf"))
            else:
                att_mask = self.mask + att_mask
            att_mask = att_mask.to(q.dtype)
        return _core(q, k, v, att_mask, dropout=self.attn_drop, causal=self.causal)


attn = ScaledDotProduct(causal=True)
