"""Buggy (Keras 3, run on torch): a causal self-attention layer of Dense maps and keras.ops,
as Keras's guides write one, that never divides the scores by sqrt(d). Its maps are read from
the torch operations Keras runs: x @ kernel, then + bias."""

import os

os.environ.setdefault("KERAS_BACKEND", "torch")  # read through the torch operations it runs

import keras
import numpy as np
from keras import ops


class SelfAttention(keras.layers.Layer):
    def __init__(self, width, heads, **kwargs):
        super().__init__(**kwargs)
        self.heads, self.size = heads, width // heads
        self.to_q, self.to_k, self.to_v = (keras.layers.Dense(width) for _ in range(3))
        self.to_out = keras.layers.Dense(width)

    def split(self, t):
        batch, n = ops.shape(t)[0], ops.shape(t)[1]
        return ops.transpose(ops.reshape(t, (batch, n, self.heads, self.size)), (0, 2, 1, 3))

    def call(self, x):
        q, k, v = (self.split(f(x)) for f in (self.to_q, self.to_k, self.to_v))
        scores = ops.matmul(q, ops.transpose(k, (0, 1, 3, 2)))  # no / sqrt(size)
        n = ops.shape(x)[1]
        future = ops.triu(ops.ones((n, n), dtype="bool"), k=1)
        scores = ops.where(future, -1e9, scores)
        out = ops.matmul(ops.softmax(scores, axis=-1), v)
        out = ops.reshape(ops.transpose(out, (0, 2, 1, 3)), ops.shape(x))
        return self.to_out(out)


attn = SelfAttention(8, 2)
attn(np.zeros((1, 3, 8), "float32"))
