"""Correct (torch): only a (b, n) key-padding mask (True = real token), indexed
[:, None, None, :] against (b, h, n, n) scores; it cannot say anything about causality."""

import math

import torch


def attention(q, k, v, key_padding_mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if key_padding_mask is not None:
        scores = scores.masked_fill(~key_padding_mask[:, None, None, :], float("-inf"))
    return torch.softmax(scores, dim=-1) @ v
