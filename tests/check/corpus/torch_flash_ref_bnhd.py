"""Correct (torch): a FlashAttention-test-style reference. (b, n, h, d) layout, einsum, a
(b, n) key-padding mask and a causal flag, upcast to float32."""

import math

import torch


def attention_ref(q, k, v, key_padding_mask=None, causal=False, upcast=True):
    dtype_og = q.dtype
    if upcast:
        q, k, v = q.float(), k.float(), v.float()
    seqlen_q, seqlen_k = q.shape[1], k.shape[1]
    scores = torch.einsum("bthd,bshd->bhts", q / math.sqrt(q.shape[-1]), k)
    if key_padding_mask is not None:
        scores.masked_fill_(~key_padding_mask[:, None, None, :], float("-inf"))
    if causal:
        future = torch.ones(seqlen_q, seqlen_k, dtype=torch.bool).triu(1)
        scores.masked_fill_(future, float("-inf"))
    attention = torch.softmax(scores, dim=-1)
    output = torch.einsum("bhts,bshd->bthd", attention, v)
    return output.to(dtype=dtype_og), attention.to(dtype=dtype_og)
