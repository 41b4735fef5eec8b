"""Attention in numpy: projections, scores, softmax, masks and the weighted sum (the maths of
the toy head; `head.py` holds the head itself, and `static/js/attention.js` mirrors this).

Row-vector convention as in PyTorch: a sentence is X of shape (n, d), one row per
token, and q = x @ W_Q. Every function is pure and takes its parameters explicitly,
so the same code serves the 2-D toy, the width experiment and the tests.
"""

from __future__ import annotations

from typing import Literal

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
