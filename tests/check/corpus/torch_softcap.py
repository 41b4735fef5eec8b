"""Correct (torch): attention with logit soft-capping, as Gemma 2 and Grok write it: the
scores s become cap * tanh(s / cap) before the mask and the softmax, so no score grows past
the cap. Off when `softcap` is None, as in Hugging Face's eager attention."""

import torch


def attention(query, key, value, attn_mask=None, scaling=None, softcap=None):
    scaling = query.size(-1) ** -0.5 if scaling is None else scaling
    scores = query @ key.transpose(-2, -1) * scaling
    if softcap is not None:
        scores = softcap * torch.tanh(scores / softcap)
    if attn_mask is not None:
        scores = scores.masked_fill(~attn_mask, float("-inf"))
    return scores.softmax(dim=-1) @ value


def attention_capped(query, key, value, attn_mask=None, softcap=20.0):
    """The same with a cap on by default."""
    return attention(query, key, value, attn_mask, softcap=softcap)
