"""Buggy (JAX): a plain JAX attention layer closing over its weights (`w_in`, three maps side
by side, and `w_out`), which scales the scores by 1/d, not 1/sqrt(d). Its maps and scale are
read from the jaxpr; the bug is named as for a torch layer. Skipped without jax."""

import jax
import jax.numpy as jnp

C, HEADS = 32, 4
keys = jax.random.split(jax.random.PRNGKey(0), 2)
w_in = jax.random.normal(keys[0], (C, 3 * C)) / C**0.5
w_out = jax.random.normal(keys[1], (C, C)) / C**0.5


def attn(x):
    b, n, _ = x.shape
    q, k, v = jnp.split(x @ w_in, 3, axis=-1)
    q, k, v = (t.reshape(b, n, HEADS, -1).transpose(0, 2, 1, 3) for t in (q, k, v))
    scores = q @ k.swapaxes(-2, -1) / q.shape[-1]
    out = jax.nn.softmax(scores, axis=-1) @ v
    return out.transpose(0, 2, 1, 3).reshape(b, n, C) @ w_out
