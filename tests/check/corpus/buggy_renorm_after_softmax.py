"""Buggy (numpy), planted: a kernel with no flag that masks the future by itself, after the
softmax, then renormalises each row. Mathematically that is the causal softmax, so ordinary
inputs agree with the reference; where a row's largest score is in the future, every kept weight
underflows to 0 and the row is 0/0. The NaN rows are the evidence the future still reaches the
past: named causal-mask-after-softmax (nonfinite-extreme before)."""

import numpy as np


def attention(q, k, v):
    s = q @ k.T / np.sqrt(q.shape[-1])
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w = w / w.sum(axis=-1, keepdims=True)
    w = w * np.tril(np.ones((q.shape[0], k.shape[0])))
    return (w / w.sum(axis=-1, keepdims=True)) @ v
