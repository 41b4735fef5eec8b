"""Correct (torch): xformers' test reference, q scaled first, an additive `attn_bias`, a dropout
mask applied to the weights; a kernel of (q, k, v) with optional extras.

after: facebookresearch/xformers tests/test_mem_eff_attention.py
commit: f149473cef224422aae367451760283e70fe0734
licence: BSD-3-Clause
target: ref_attention
expected: ok
"""


def ref_attention(q, k, v, attn_bias=None, drop_mask=None, p=0.0, scale=None):
    q = q * (1 / q.shape[-1] ** 0.5 if scale is None else scale)
    attn = q @ k.transpose(-2, -1)
    if attn_bias is not None:
        attn = attn + attn_bias
    attn = attn.softmax(-1)
    if drop_mask is not None:
        attn = attn * (drop_mask / (1 - p))
    return attn @ v
