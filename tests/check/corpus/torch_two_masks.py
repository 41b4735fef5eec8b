"""Buggy (torch): two mask arguments. `mask` (boolean keep) is filled with -inf as it should
be; `attn_mask` is multiplied into the scores."""

import math

import torch


def attention(q, k, v, mask=None, attn_mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    if attn_mask is not None:
        scores = scores * attn_mask
    return torch.softmax(scores, dim=-1) @ v
