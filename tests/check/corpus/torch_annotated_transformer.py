"""Correct (torch): The Annotated Transformer's `attention`, written after the notebook's: a
function of (query, key, value, mask=None, dropout=None), scores scaled by 1/sqrt(d), filled
with -1e9 where mask == 0, softmaxed, passed through the optional dropout module, and returned
as (output, weights).

after: harvardnlp/annotated-transformer the_annotated_transformer.py
commit: 0a91a254735c07532e23733dce8a693e504f3a08
licence: MIT
target: attention
expected: ok
"""

import math

import torch


def attention(query, key, value, mask=None, dropout=None):
    s = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(query.size(-1))
    if mask is not None:
        s = s.masked_fill(mask == 0, -1e9)
    p = s.softmax(dim=-1)
    p = p if dropout is None else dropout(p)
    return torch.matmul(p, value), p
