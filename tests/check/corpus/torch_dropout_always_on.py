"""Buggy (torch): dropout on the weights through `F.dropout`, which drops unless it is told
`training=False`, so it drops in inference too. The output changes from call to call."""

import math

import torch.nn.functional as F


def attention(query, key, value, mask=None):
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    weights = F.dropout(scores.softmax(dim=-1), p=0.1)  # BUG: no training=self.training
    return weights @ value
