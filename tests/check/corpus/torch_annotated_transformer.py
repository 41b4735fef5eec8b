"""Correct (torch): The Annotated Transformer's `attention`, as the notebook writes it: masked
scores filled with -1e9 where mask == 0, softmax, optional dropout module, and the weights
returned beside the output.

repository: harvardnlp/annotated-transformer
path: the_annotated_transformer.py
commit: 0a91a254735c07532e23733dce8a693e504f3a08
licence: MIT
target: attention
expected: ok
"""

import math

import torch


def attention(query, key, value, mask=None, dropout=None):
    "Compute 'Scaled Dot Product Attention'"
    d_k = query.size(-1)
    scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -1e9)
    p_attn = scores.softmax(dim=-1)
    if dropout is not None:
        p_attn = dropout(p_attn)
    return torch.matmul(p_attn, value), p_attn
