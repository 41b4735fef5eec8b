"""Correct (torch): dropout on the weights with its probability as an argument, 0.1 by
default, as training code often writes it. Inference passes dropout_p=0.0; so does the check."""

import math

import torch.nn.functional as F


def attention(query, key, value, mask=None, dropout_p=0.1):
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    return F.dropout(scores.softmax(dim=-1), p=dropout_p) @ value
