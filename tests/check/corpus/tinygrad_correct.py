"""Correct (tinygrad): Tensor methods; the output is a tinygrad Tensor read with .numpy()."""

import math

from tinygrad import Tensor


def attention(q, k, v, causal=False):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if causal:
        n = scores.shape[-1]
        scores = Tensor.ones(n, n).tril().where(scores, float("-inf"))
    return scores.softmax(-1) @ v
