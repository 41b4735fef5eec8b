"""Buggy (torch): masked_fill(mask == 0, -1e-9): a fill that blocks nothing."""

import math

import torch


def attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -1e-9)
    return torch.softmax(scores, dim=-1) @ v
