"""Correct (torch): parameters in the order (values, keys, query, mask), (b, n, h, d) layout,
einsum, mask == 0 filled with -1e20."""

import torch


def attention(values, keys, query, mask):
    head_dim = query.shape[-1]
    energy = torch.einsum("nqhd,nkhd->nhqk", query, keys)
    if mask is not None:
        energy = energy.masked_fill(mask == 0, float("-1e20"))
    weights = torch.softmax(energy / head_dim**0.5, dim=3)
    return torch.einsum("nhql,nlhd->nqhd", weights, values)
