"""Correct (JAX): Flax's `flax.linen.dot_product_attention`, written after it without the module
machinery, dropout key or custom einsums: (..., n, heads, d) layout, q divided by sqrt(d)
before the product, an additive `bias`, a boolean `mask` (True = may attend; the others set to
the dtype's lowest finite value, not -inf), softmax over the keys, weights cast to `dtype`.

after: google/flax flax/linen/attention.py
commit: 18f8f311c275d57f46d95e41b15aa97b454754c0
licence: Apache-2.0
target: dot_product_attention
expected: ok
"""

import jax
import jax.numpy as jnp


def dot_product_attention(query, key, value, bias=None, mask=None, dtype=None):
    dtype = dtype or query.dtype
    q = query / jnp.sqrt(query.shape[-1]).astype(dtype)
    logits = jnp.einsum("...qhd,...khd->...hqk", q, key)
    if bias is not None:
        logits = logits + bias
    if mask is not None:
        logits = jnp.where(mask, logits, jnp.finfo(dtype).min)
    weights = jax.nn.softmax(logits).astype(dtype)
    return jnp.einsum("...hqk,...khd->...qhd", weights, value)
