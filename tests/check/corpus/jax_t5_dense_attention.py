"""Correct (JAX): T5's dense attention as flaxformer writes it, a plain function of
(..., n, heads, d) q, k, v: scores by einsum to (..., heads, q, k), an additive `bias` (masks
arrive folded into it), softmax over the keys, weights cast to `dtype`, optional dropout, and an
`use_extra_logit` softmax with a zero logit added to the sum. T5 does not scale the scores (the
1/sqrt(d) is folded into how q is initialised): `rescale_logits=True` divides q by sqrt(d), as
a model trained that way asks. Called with it, it checks ok; with the defaults the check says
scale-missing and names T5's convention in its fix. Our own code.

after: google/flaxformer flaxformer/components/attention/dense_attention.py
commit: 399ea3a85e9807ada653fd0de1a9de627eb0acde
licence: Apache-2.0
target: dot_product_attention
expected: ok
args: {"rescale_logits": True}
"""

import jax
import jax.numpy as jnp
from jax import random


def _one_more_softmax(x, axis=-1):
    """Softmax with a virtual zero logit: the weights may sum to less than one."""
    top = jnp.maximum(jax.lax.stop_gradient(x.max(axis, keepdims=True)), 0)
    e = jnp.exp(x - top)
    return e / (e.sum(axis, keepdims=True) + jnp.exp(-top))


def dot_product_attention(
    query,
    key,
    value,
    bias=None,
    rescale_logits=False,
    dropout_rng=None,
    dropout_rate=0.0,
    enable_dropout=True,
    dtype=jnp.float32,
    use_extra_logit=False,
):
    if rescale_logits:
        query = query / jnp.sqrt(query.shape[-1]).astype(dtype)
    logits = jnp.einsum("...qhd,...khd->...hqk", query, key)
    if bias is not None:
        logits = logits + bias.astype(logits.dtype)
    weights = (_one_more_softmax if use_extra_logit else jax.nn.softmax)(logits).astype(dtype)
    if enable_dropout and dropout_rate > 0.0:
        keep = random.bernoulli(dropout_rng, 1.0 - dropout_rate, weights.shape)
        weights = weights * keep.astype(dtype) / (1.0 - dropout_rate)
    return jnp.einsum("...hqk,...khd->...qhd", weights, value)
