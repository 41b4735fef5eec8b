"""Correct (Keras 3): keras.layers.MultiHeadAttention itself, two heads of size 4 on C = 8,
built by one call on (query, value). On the torch backend it is read through the torch calls
it makes; on the JAX backend (KERAS_BACKEND=jax, no torch needed) from its jaxpr, x handed as
query, value and key, and `use_causal_mask` checked on as its causal flag."""

import os

os.environ.setdefault("KERAS_BACKEND", "torch")  # read through the torch operations it runs

import keras
import numpy as np

attn = keras.layers.MultiHeadAttention(num_heads=2, key_dim=4)
attn(np.zeros((1, 3, 8), "float32"), np.zeros((1, 3, 8), "float32"))
