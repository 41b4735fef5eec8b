"""Attention in numpy: projections, scores, softmax, masks, the weighted sum and its tiled pass
(the maths of the toy head; `head.py` holds the head itself, `static/js/attention.js` mirrors
this, and `bugs.py` holds the head with F26's silent bugs).

Row-vector convention as in PyTorch: a sentence is X of shape (n, d), one row per
token, and q = x @ W_Q. Every function is pure and takes its parameters explicitly,
so the same code serves the 2-D toy, the width experiment and the tests.
"""

from __future__ import annotations

import math
from typing import Literal, NamedTuple

import numpy as np

MaskMode = Literal["none", "causal", "multiply"]
MASK_MODES: tuple[MaskMode, ...] = ("none", "causal", "multiply")


# -- the four steps -----------------------------------------------------------


def project(X: np.ndarray, W: np.ndarray) -> np.ndarray:
    """Queries, keys or values: (n, d) @ (d, d) -> (n, d)."""
    return X @ W


def raw_scores(Q: np.ndarray, K: np.ndarray) -> np.ndarray:
    """R = Q Kᵀ: R[i, j] is how much query i likes key j.  (n, n)"""
    return Q @ np.swapaxes(K, -1, -2)


def scaled_scores(Q: np.ndarray, K: np.ndarray) -> np.ndarray:
    """S = Q Kᵀ / √d, the divisor that keeps the spread near 1 at any width.  (n, n)"""
    return raw_scores(Q, K) / np.sqrt(Q.shape[-1])


def causal_mask(n: int) -> np.ndarray:
    """True where a query would look at a later key (above the diagonal).  (n, n)"""
    return np.triu(np.ones((n, n), dtype=bool), k=1)


def apply_mask(S: np.ndarray, mode: MaskMode) -> np.ndarray:
    """`causal` sets the future to −∞; `multiply` is the bug that sets it to 0."""
    if mode == "none":
        return S
    future = causal_mask(S.shape[-1])
    if mode == "causal":
        return np.where(future, -np.inf, S)
    if mode == "multiply":
        return np.where(future, 0.0, S)  # what scores * keep_mask computes
    raise ValueError(f"unknown mask mode {mode!r}; expected one of {MASK_MODES}")


def softmax(S: np.ndarray) -> np.ndarray:
    """Row-wise softmax, stable: subtracting the row max cancels in the ratio.

    A row that is −∞ everywhere has nothing to attend to and gives zeros, not NaN.
    >>> softmax(np.array([[0.0, 0.0]])).tolist()
    [[0.5, 0.5]]
    """
    S = np.asarray(S, dtype=float)
    top = np.max(S, axis=-1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(over="ignore"):  # −1e308 − 1e308 overflows to −∞, whose exp is the right 0
        e = np.exp(S - top)
    total = np.sum(e, axis=-1, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)


def weighted_sum(W: np.ndarray, V: np.ndarray) -> np.ndarray:
    """out[i] = Σ_j W[i, j] v_j: each output is a convex mix of the values.  (n, d)"""
    return W @ V


def attention(
    X: np.ndarray,
    W_Q: np.ndarray,
    W_K: np.ndarray,
    W_V: np.ndarray,
    mask: MaskMode = "none",
) -> dict[str, np.ndarray]:
    """Run the head on X and return every intermediate, named as in the article."""
    Q, K, V = project(X, W_Q), project(X, W_K), project(X, W_V)  # (n, d) each
    R = raw_scores(Q, K)  # (n, n)
    S = apply_mask(R / np.sqrt(X.shape[-1]), mask)  # (n, n)
    W = softmax(S)  # (n, n), rows sum to 1
    return {"Q": Q, "K": K, "V": V, "R": R, "S": S, "W": W, "out": weighted_sum(W, V)}


# -- attention alone, stacked ---------------------------------------------------


def stacked_alone(out: np.ndarray, W_Q: np.ndarray, W_K: np.ndarray, layers: int) -> list:
    """The outputs of `layers` attention layers with nothing between them, the first given.

    Each further layer takes the previous outputs as its inputs and passes them on as its
    values (no MLP, no value map), so every output is a convex mix of the previous ones and
    each layer's points lie inside the last layer's polygon.  [(n, d)] * layers
    """
    stack = [np.asarray(out, dtype=float)]
    while len(stack) < layers:
        X = stack[-1]
        W = softmax(scaled_scores(project(X, W_Q), project(X, W_K)))
        stack.append(weighted_sum(W, X))
    return stack


def spread(points: np.ndarray) -> float:
    """The widest distance between two of the points: how far apart the tokens still are."""
    P = np.asarray(points, dtype=float)
    return float(np.max(np.linalg.norm(P[:, None, :] - P[None, :, :], axis=-1)))


def spread_at_init(width: int, pairs: int = 32, seed: int = 2024) -> float:
    """The standard deviation of raw scores q·k at random initialisation: `pairs` queries
    against as many keys, every coordinate drawn from N(0, 1). It grows as √width, which is
    what the √d divisor undoes (F26's assertion reads it at a GPT-2 small head's width)."""
    Q, K = np.random.default_rng(seed).standard_normal((2, pairs, width))
    return float(raw_scores(Q, K).std())


# -- the tiled pass (F24) ---------------------------------------------------------


# the mistakes a tiled kernel makes, by the ids `selfattn check` names them with
TiledBug = Literal["online-softmax-no-rescale", "online-softmax-early-normalize"]


class Running(NamedTuple):
    """What a tiled pass holds after `keys` keys: the running max m, the running sum l of
    exp(s − m), the accumulator, the factor exp(m_old − m_new) the last tile rescaled by
    (None before any max), the output so far (None while l is 0), and each seen key's share
    of l (`terms`, F24 draws them; l minus their sum is what a carried-over start left)."""

    m: float
    l: float  # noqa: E741 (the article's ℓ)
    acc: np.ndarray
    rescale: float | None
    out: np.ndarray | None
    keys: int
    terms: np.ndarray


def online_softmax(
    s: np.ndarray,
    V: np.ndarray,
    tile: int,
    bug: TiledBug | None = None,
    start: tuple[float, float, np.ndarray] | None = None,
) -> list[Running]:
    """One row's softmax(s) @ V streamed over the keys in tiles of `tile`, as a tiled kernel
    computes it: m and l rescaled whenever the max grows, divided once at the end. Returns the
    state before any tile and after each one; the last `out` is softmax(s) @ V.

    `bug` makes one of the mistakes the checker names; `start` carries (m, l, acc) over from
    another row, as a kernel that forgets to reset its accumulator does.
    >>> online_softmax(np.array([0.0, 0.0]), np.eye(2), 1)[-1].out.tolist()
    [0.5, 0.5]
    """
    s, V = np.asarray(s, dtype=float), np.asarray(V, dtype=float)  # (n,), (n, d)
    m, ell, acc = start if start is not None else (-math.inf, 0.0, np.zeros(V.shape[1]))
    states = [Running(m, ell, acc, None, acc / ell if ell > 0 else None, 0, np.zeros(0))]
    terms = np.zeros(0)  # (keys seen,): exp(s_j − m) as l holds it
    for first in range(0, len(s), tile):
        last = min(len(s), first + tile)
        new = max(m, float(s[first:last].max()))
        rescale = math.exp(m - new) if math.isfinite(m) else None
        # nothing held yet: what acc and l hold is scaled by 0; the bug keeps it as it was
        skip = bug == "online-softmax-no-rescale"
        c = 0.0 if rescale is None else 1.0 if skip else rescale
        p = np.exp(s[first:last] - new)  # (tile,)
        total = c * acc + p @ V[first:last]  # (d,)
        ell = c * ell + float(p.sum())
        terms = np.concatenate([c * terms, p])
        # normalising early keeps acc divided by the old l, and divides it again by the new one
        early = bug == "online-softmax-early-normalize"
        acc = total / ell if early else total
        m = new
        states.append(Running(m, ell, acc, rescale, acc if early else acc / ell, last, terms))
    return states
