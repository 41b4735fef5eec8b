"""Correct (Keras 3, run on torch): keras-hub's LlamaAttention, written after it.
q from an EinsumDense "bqm,muh->bquh" with every head, k and v from "bkm,mvh->bkvh" with fewer
(grouped-query attention: `ops.repeat` gives each k, v head to consecutive q heads), a rotary
embedding applied to q and k that works out its angles on every call from its wavelength and
the positions 0 .. n-1, scores by einsum("bquh,bkuh->buqk") times 1/sqrt(head size), a float32
Keras Softmax, and "bquh,uhm->bqm" out. No mask unless one is handed in; no bias. Our own code.

The check reads the maps, the 4 q heads and the 2 k, v heads from the run (before, k and v
narrower than q made it give up on the run, and the layer was read as a kernel: exit 2). The
rotation keeps no angle, frequency or cos/sin tensor to set to angle 0, so its cos and sin are
answered as at angle 0 while it runs (rotary.AtZero); before that it read wrong-output, a
false alarm (by hand, with the layer's own rotation applied to q and k, the real layer matches
float64 attention to 4e-7).

after: keras-team/keras-hub keras_hub/src/models/llama/llama_attention.py
commit: 71453d08f59edc90d276e999319fc51e61cbf82c
licence: Apache-2.0
target: attn
expected: ok
"""

import math
import os

os.environ.setdefault("KERAS_BACKEND", "torch")  # read through the torch operations it runs

import keras
from keras import ops


class Rotation(keras.layers.Layer):
    """Rotary embedding over the last axis of (batch, n, heads, size), made on each call."""

    def __init__(self, wavelength=10000, **kwargs):
        super().__init__(**kwargs)
        self.wavelength = wavelength

    def call(self, x):
        size = ops.shape(x)[-1]
        inverse = ops.power(
            ops.cast(self.wavelength, "float32"), -ops.arange(0, size, 2, dtype="float32") / size
        )
        angle = ops.einsum("i,j->ij", ops.arange(ops.shape(x)[1], dtype="float32"), inverse)
        angle = ops.concatenate([angle, angle], axis=-1)[None, :, None, :]
        first, second = ops.split(x, 2, axis=-1)
        turned = ops.concatenate([-second, first], axis=-1)
        return x * ops.cos(angle) + turned * ops.sin(angle)


class GroupedRotaryAttention(keras.layers.Layer):
    def __init__(self, heads, kv_heads, **kwargs):
        super().__init__(**kwargs)
        self.heads, self.kv_heads = heads, kv_heads

    def build(self, shape):
        width = shape[-1]
        size = width // self.heads
        self.scale = 1.0 / math.sqrt(size)
        self.query = keras.layers.EinsumDense("bqm,muh->bquh", (None, self.heads, size))
        self.key = keras.layers.EinsumDense("bkm,mvh->bkvh", (None, self.kv_heads, size))
        self.value = keras.layers.EinsumDense("bkm,mvh->bkvh", (None, self.kv_heads, size))
        self.out = keras.layers.EinsumDense("bquh,uhm->bqm", (None, width))
        for dense in (self.query, self.key, self.value):
            dense.build(shape)
        self.out.build((None, None, self.heads, size))
        self.rotation = Rotation()
        self.softmax = keras.layers.Softmax(axis=-1, dtype="float32")

    def call(self, hidden_states, attention_mask=None, training=None):
        q = self.rotation(self.query(hidden_states))
        k = self.rotation(self.key(hidden_states))
        v = self.value(hidden_states)
        group = self.heads // self.kv_heads
        k, v = ops.repeat(k, group, axis=2), ops.repeat(v, group, axis=2)
        scores = ops.einsum("bquh,bkuh->buqk", q, k) * ops.cast(self.scale, q.dtype)
        if attention_mask is None:
            weights = self.softmax(scores)
        else:
            weights = self.softmax(scores, attention_mask[:, None, :, :])
        return self.out(ops.einsum("buqk,bkuh->bquh", ops.cast(weights, v.dtype), v))


attn = GroupedRotaryAttention(heads=4, kv_heads=2)
attn(ops.zeros((1, 3, 32)))
