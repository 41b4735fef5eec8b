"""Buggy (Keras 3, run on torch): Keras's MultiHeadAttention between #22910 and #23040, written
after it. `use_causal_mask=True` with no other mask was handed on as a flag for the fused
dot-product kernel only; a layer with dropout above 0 took the explicit path (einsum scores,
Softmax, dropout) even at inference, and that path never saw the flag: every query attended
to every key, with no error (keras-team/keras#23038, fixed by #23040, 75a660e). Here the flag
changes nothing, which the check names causal-flag-ignored, with the leak it lets through.

after: keras-team/keras keras/src/layers/attention/multi_head_attention.py
commit: 5a524001dbc89cc9be4e034da0ee7c5f8064aafd
licence: Apache-2.0
target: attn
expected: buggy causal-flag-ignored
"""

import os

os.environ.setdefault("KERAS_BACKEND", "torch")  # read through the torch operations it runs

import keras
import numpy as np
from keras import ops


class HeadsAttention(keras.layers.Layer):
    def __init__(self, heads, size, dropout=0.0, **kwargs):
        super().__init__(**kwargs)
        self.heads, self.size, self.rate = heads, size, dropout
        self.softmax = keras.layers.Softmax(axis=-1)
        self.dropout = keras.layers.Dropout(dropout)

    def build(self, query_shape, value_shape=None):
        width, per_head = query_shape[-1], (None, self.heads, self.size)
        self.query = keras.layers.EinsumDense("abc,cde->abde", per_head, bias_axes="de")
        self.key = keras.layers.EinsumDense("abc,cde->abde", per_head, bias_axes="de")
        self.value = keras.layers.EinsumDense("abc,cde->abde", per_head, bias_axes="de")
        self.out = keras.layers.EinsumDense("abcd,cde->abe", (None, width), bias_axes="e")
        for dense in (self.query, self.key, self.value):
            dense.build(query_shape)
        self.out.build((*query_shape[:-1], self.heads, self.size))

    def call(self, query, value, use_causal_mask=False, training=None):
        q, k, v = self.query(query), self.key(value), self.value(value)
        if self.rate == 0.0:  # the fused kernel, told to be causal
            q, k, v = (ops.transpose(t, (0, 2, 1, 3)) for t in (q, k, v))
            scale = 1.0 / np.sqrt(self.size)
            both = torch_sdpa(q, k, v, is_causal=use_causal_mask, scale=scale)
            return self.out(ops.transpose(both, (0, 2, 1, 3)))
        # the explicit path: the flag went to the fused kernel only, so no mask here
        q = q * ops.cast(1.0 / np.sqrt(self.size), q.dtype)
        weights = self.dropout(self.softmax(ops.einsum("aecd,abcd->acbe", k, q)), training)
        return self.out(ops.einsum("acbe,aecd->abcd", weights, v))


def torch_sdpa(q, k, v, is_causal, scale):
    import torch.nn.functional as F

    return F.scaled_dot_product_attention(q, k, v, is_causal=is_causal, scale=scale)


attn = HeadsAttention(heads=2, size=4, dropout=0.1)
attn(np.zeros((1, 3, 8), "float32"), np.zeros((1, 3, 8), "float32"))
