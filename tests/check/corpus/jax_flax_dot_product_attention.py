"""Correct (JAX): Flax's `flax.linen.dot_product_attention` with its weights function, condensed
to what runs without a module, a dropout key or custom einsums: (batch, n, heads, d) layout,
q divided by sqrt(d) before the product, an additive `bias` and a boolean `mask`
(True = may attend, masked scores set to the dtype's lowest value, not -inf), softmax over
the keys; dropout only when `deterministic` is False and `dropout_rate` > 0.

repository: google/flax
path: flax/linen/attention.py
commit: 18f8f311c275d57f46d95e41b15aa97b454754c0
licence: Apache-2.0
target: dot_product_attention
expected: ok
"""

import jax
import jax.numpy as jnp


def dot_product_attention_weights(query, key, bias=None, mask=None, dtype=None):
    dtype = dtype or query.dtype
    depth = query.shape[-1]
    query = query / jnp.sqrt(depth).astype(dtype)
    # attn weight shape is (batch..., num_heads, q_length, kv_length)
    attn_weights = jnp.einsum("...qhd,...khd->...hqk", query, key)
    if bias is not None:
        attn_weights = attn_weights + bias
    if mask is not None:
        big_neg = jnp.finfo(dtype).min
        attn_weights = jnp.where(mask, attn_weights, big_neg)
    return jax.nn.softmax(attn_weights).astype(dtype)


def dot_product_attention(query, key, value, bias=None, mask=None, dtype=None):
    assert key.ndim == query.ndim == value.ndim, "q, k, v must have same rank."
    assert query.shape[:-3] == key.shape[:-3] == value.shape[:-3], "q, k, v batch dims must match."
    assert query.shape[-2] == key.shape[-2] == value.shape[-2], "q, k, v num_heads must match."
    assert key.shape[-3] == value.shape[-3], "k, v lengths must match."
    attn_weights = dot_product_attention_weights(query, key, bias, mask, dtype)
    # return weighted sum over values for each query position
    return jnp.einsum("...hqk,...khd->...qhd", attn_weights, value)
