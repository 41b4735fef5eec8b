"""Correct (Keras 3): keras.layers.GroupQueryAttention itself, four q heads of size 4 sharing
two k, v heads (each repeated for two consecutive q heads) on C = 16. Its map out contracts
(size, heads) of the heads' output with (1, 0) of its (heads, size, C) kernel. Read through
torch's calls on the torch backend, from its jaxpr on JAX."""

import os

os.environ.setdefault("KERAS_BACKEND", "torch")  # read through the torch operations it runs

import keras
import numpy as np

attn = keras.layers.GroupQueryAttention(head_dim=4, num_query_heads=4, num_key_value_heads=2)
attn(np.zeros((1, 3, 16), "float32"), np.zeros((1, 3, 16), "float32"))
