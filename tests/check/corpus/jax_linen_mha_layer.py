"""Correct (JAX): Flax's `nn.MultiHeadDotProductAttention` applied to its own parameters, as a
layer x -> y of x (batch, n, C) attending to itself. Its weights are DenseGeneral kernels
(C, heads, head_dim) in a parameter tree under `query`, `key`, `value` and `out`: no name is
read. q, k, v, the map out, the head count and the scale are read from the jaxpr, by their
part in the computation. Before the jaxpr was read: taken for a model of token ids, exit 2.
Skipped without jax and flax."""

import flax.linen as nn
import jax
import jax.numpy as jnp

module = nn.MultiHeadDotProductAttention(num_heads=4, qkv_features=32)
params = module.init(jax.random.PRNGKey(0), jnp.ones((1, 5, 32)))


def attn(x):
    return module.apply(params, x)
