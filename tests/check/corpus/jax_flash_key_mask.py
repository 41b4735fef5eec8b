"""Correct (JAX): flash attention in JAX after lucidrains' flash-attention-jax: q, k, v as
(batch, heads, n, d), a required boolean `key_mask` of shape (batch, n) (True = may attend),
no causal option. The keys are walked in chunks by `lax.scan` on (n, batch, heads, d) tensors,
a running maximum and sum rescaling the partial output; masked scores set to a large negative
value and their weights zeroed; a small epsilon added to each chunk's sum. The gradient is a
`custom_vjp` that recomputes the weights from the saved log-sum-exp. Our own code.

The check once read `key_mask` as an (n, n) mask: the kernel takes one without complaint
(row 0 read as batch 0's), so the causal probe handed it a lower triangle and called the
kernel wrong-output; and a batch of two got a (1, n) mask and failed.

after: lucidrains/flash-attention-jax flash_attention_jax/flash_attention.py
commit: d73dcdd6cb4b4f8d786922e2ec6826036dae896a
licence: MIT
target: flash_attention
expected: ok
"""

import math

import jax
import jax.numpy as jnp
from jax import lax

CHUNK = 4  # keys per step of the scan
TINY = 1e-10
HIDDEN = -1e10


def _chunks(x, size):
    """(n, ...) padded to whole chunks and cut into (chunks, size, ...)."""
    pad = -x.shape[0] % size
    x = jnp.pad(x, [(0, pad)] + [(0, 0)] * (x.ndim - 1))
    return x.reshape(-1, size, *x.shape[1:])


def _forward(q, k, v, key_mask):
    # to (n, batch, heads, d): the scan walks the first axis
    q, k, v = (jnp.transpose(t, (2, 0, 1, 3)) for t in (q, k, v))
    keep = _chunks(key_mask.T, CHUNK)  # (chunks, size, batch); padded keys False
    ks, vs = _chunks(k, CHUNK), _chunks(v, CHUNK)
    q = q / math.sqrt(q.shape[-1])

    def step(carry, chunk):
        out, total, top = carry
        kc, vc, mc = chunk
        s = jnp.einsum("ibhd,jbhd->ibhj", q, kc)
        mc = jnp.transpose(mc)[None, :, None, :]  # (1, batch, 1, size)
        s = jnp.where(mc, s, HIDDEN)
        new_top = jnp.maximum(top, s.max(-1, keepdims=True))
        w = jnp.where(mc, jnp.exp(s - new_top), 0.0)
        part = w.sum(-1, keepdims=True) + TINY
        shrink = jnp.exp(top - new_top)
        new_total = shrink * total + part
        out = (total * shrink * out + jnp.einsum("ibhj,jbhd->ibhd", w, vc)) / new_total
        return (out, new_total, new_top), None

    n, b, h, _ = q.shape
    start = (
        jnp.zeros((n, b, h, v.shape[-1])),
        jnp.zeros((n, b, h, 1)),
        jnp.full((n, b, h, 1), -1e6),
    )
    (out, total, top), _ = lax.scan(step, start, (ks, vs, keep))
    lse = jnp.log(total) + top
    return jnp.transpose(out, (1, 2, 0, 3)), jnp.transpose(lse[..., 0], (1, 2, 0))


@jax.custom_vjp
@jax.jit
def flash_attention(q, k, v, key_mask):
    return _forward(q, k, v, key_mask)[0]


@jax.jit
def _fwd(q, k, v, key_mask):
    out, lse = _forward(q, k, v, key_mask)
    return out, (q, k, v, key_mask, out, lse)


def _bwd(saved, dout):
    q, k, v, key_mask, out, lse = saved
    scale = 1 / math.sqrt(q.shape[-1])
    s = jnp.einsum("bhid,bhjd->bhij", q, k) * scale
    p = jnp.where(key_mask[:, None, None, :], jnp.exp(s - lse[..., None]), 0.0)
    dv = jnp.einsum("bhij,bhid->bhjd", p, dout)
    dp = jnp.einsum("bhid,bhjd->bhij", dout, v)
    row = jnp.sum(dout * out, axis=-1, keepdims=True)
    ds = p * (dp - row) * scale
    dq = jnp.einsum("bhij,bhjd->bhid", ds, k)
    dk = jnp.einsum("bhij,bhid->bhjd", ds, q)
    return dq, dk, dv, None


flash_attention.defvjp(_fwd, _bwd)
