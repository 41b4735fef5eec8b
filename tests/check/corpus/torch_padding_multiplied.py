"""Buggy (torch): (b, n, h, d) reference whose key-padding mask multiplies the scores, so a
padded key gets score 0, not -inf."""

import math

import torch


def attention_ref(q, k, v, key_padding_mask=None, causal=False):
    scores = torch.einsum("bthd,bshd->bhts", q / math.sqrt(q.shape[-1]), k)
    if key_padding_mask is not None:
        scores = scores * key_padding_mask[:, None, None, :]
    if causal:
        n = scores.shape[-1]
        scores = scores.masked_fill(torch.ones(n, n, dtype=torch.bool).triu(1), float("-inf"))
    return torch.einsum("bhts,bshd->bthd", torch.softmax(scores, dim=-1), v)
