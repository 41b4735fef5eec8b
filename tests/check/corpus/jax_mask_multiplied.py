"""Buggy (JAX): a boolean keep mask multiplied into the scores."""

import jax
import jax.numpy as jnp


def attention(q, k, v, mask=None):
    scores = jnp.einsum("...qd,...kd->...qk", q, k) / jnp.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores * mask
    return jax.nn.softmax(scores, axis=-1) @ v
