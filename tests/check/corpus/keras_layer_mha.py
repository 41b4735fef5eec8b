"""Correct (Keras 3, run on torch): Keras's MultiHeadAttention, written after it with its own
building blocks. q, k and v come from EinsumDense maps whose kernels are (C, heads, size) and
whose biases are added after the einsum; q is multiplied by 1/sqrt(size) before the scores,
which are einsum("aecd,abcd->acbe", k, q), k first; the softmax is a Keras Softmax layer; the
map out is an EinsumDense with a (heads, size, C) kernel. It is called as layer(query, value)
and masks the future only when asked, with `use_causal_mask`. No name is read: the maps, the
head count, the scale and which factor is q are read from the torch operations it runs.

after: keras-team/keras keras/src/layers/attention/multi_head_attention.py
commit: 3422977a5e38fb2f7709aaa9a08e47f0c43d0f60
licence: Apache-2.0
target: attn
expected: ok
"""

import os

os.environ.setdefault("KERAS_BACKEND", "torch")  # read through the torch operations it runs

import keras
import numpy as np
from keras import ops


class HeadsAttention(keras.layers.Layer):
    def __init__(self, heads, size, **kwargs):
        super().__init__(**kwargs)
        self.heads, self.size = heads, size
        self.softmax = keras.layers.Softmax(axis=-1)

    def build(self, query_shape, value_shape=None):
        width = query_shape[-1]
        maps = {"output_shape": (None, self.heads, self.size), "bias_axes": "de"}
        self.query = keras.layers.EinsumDense("abc,cde->abde", name="query", **maps)
        self.key = keras.layers.EinsumDense("abc,cde->abde", name="key", **maps)
        self.value = keras.layers.EinsumDense("abc,cde->abde", name="value", **maps)
        self.out = keras.layers.EinsumDense(
            "abcd,cde->abe", output_shape=(None, width), bias_axes="e", name="attention_output"
        )
        for dense in (self.query, self.key, self.value):
            dense.build(query_shape)
        self.out.build((*query_shape[:-1], self.heads, self.size))

    def call(self, query, value, key=None, use_causal_mask=False):
        key = value if key is None else key
        q = self.query(query) * ops.cast(1.0 / np.sqrt(self.size), query.dtype)
        k, v = self.key(key), self.value(value)
        scores = ops.einsum("aecd,abcd->acbe", k, q)  # (batch, heads, queries, keys)
        if use_causal_mask:
            n, m = ops.shape(query)[1], ops.shape(value)[1]
            keep = ops.greater_equal(ops.arange(n)[:, None], ops.arange(m)[None, :])
            scores = ops.where(keep, scores, -1e9)
        weights = self.softmax(scores)
        return self.out(ops.einsum("acbe,aecd->abcd", weights, v))


attn = HeadsAttention(heads=2, size=4)
attn(np.zeros((1, 3, 8), "float32"), np.zeros((1, 3, 8), "float32"))
