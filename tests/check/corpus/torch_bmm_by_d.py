"""Buggy (torch): bmm over (b, n, d), as in many tutorials; the scores are divided by d."""

import torch


def attention(q, k, v, attn_mask=None):
    d = q.size(-1)
    scores = torch.bmm(q, k.transpose(1, 2)) / d  # (b, n, n)
    if attn_mask is not None:
        scores = scores + attn_mask
    return torch.bmm(torch.softmax(scores, dim=-1), v)
