"""Correct (torch): the library's scaled_dot_product_attention."""

import torch.nn.functional as F


def attention(q, k, v, is_causal=False):
    return F.scaled_dot_product_attention(q, k, v, is_causal=is_causal)
