"""Correct (torch): a reference kernel in the style of xformers' and flash-attn's test suites.
The causal mask, like any other, comes in as `attn_bias`, added to the scores; `drop_mask`
is dropout's keep mask, multiplied into the weights after softmax on purpose, and rescaled by
1 / (1 - p). It computes in float32 whatever it is given."""

import torch  # noqa: F401  (the checker hands a module that imports torch torch tensors)


def ref_attention(q, k, v, attn_bias=None, drop_mask=None, p=0.0, scale=None):
    q, k, v = q.float(), k.float(), v.float()
    scale = q.shape[-1] ** -0.5 if scale is None else scale
    scores = (q * scale) @ k.transpose(-2, -1)
    if attn_bias is not None:
        scores = scores + attn_bias.float()
    weights = scores.softmax(dim=-1)
    if drop_mask is not None:
        weights = weights * drop_mask / (1 - p)
    return weights @ v
