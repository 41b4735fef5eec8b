"""Correct: pure-Python loops and math.exp; always causal, with no flag."""

import math

import numpy as np


def causal_attention(q, k, v):
    n, d = len(q), len(q[0])
    out = np.zeros((n, len(v[0])))
    for i in range(n):
        scores = [sum(q[i][t] * k[j][t] for t in range(d)) / math.sqrt(d) for j in range(i + 1)]
        top = max(scores)
        weights = [math.exp(s - top) for s in scores]
        total = sum(weights)
        for j, w in enumerate(weights):
            out[i] += (w / total) * np.asarray(v[j])
    return out
