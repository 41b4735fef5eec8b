"""The toy head with F26's silent bugs switched on, each named by the id `selfattn check` gives it.

`static/js/figures/F26-silent-bugs.js` computes the same head; its switches keep the page's
own names (SWITCHES says which is which).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .article import STRETCH
from .attention import apply_mask, project, softmax, weighted_sum
from .head import Head


@dataclass(frozen=True)
class SilentBugs:
    """Which of the four bugs are on. The toy head has no positions, so it starts order-blind."""

    causal_mask_multiplied: bool = False  # the mask multiplied in: future scores 0, not −∞
    order_blind: bool = True  # no positional encoding; off, q and k get RoPE
    scale_missing: bool = False  # scores not divided by √d
    long_key_takeover: bool = False  # `and`'s key STRETCH times longer, nothing to stop it

    @classmethod
    def from_switches(cls, switches: dict[str, bool]) -> SilentBugs:
        """The bugs from F26's state, which names them as its switches do."""
        return cls(**{SWITCHES[name]: on for name, on in switches.items()})


# F26's switches (the keys of its state) and the bug each turns on
SWITCHES = {
    "multiply": "causal_mask_multiplied",
    "noPositions": "order_blind",
    "noSqrt": "scale_missing",
    "longKey": "long_key_takeover",
}


def turn(M: np.ndarray, positions: np.ndarray, theta: float = 1.0) -> np.ndarray:
    """Each row of M (..., n, 2) turned by its position times θ radians: RoPE in two
    dimensions, where there is one frequency, θ (F28 drags it)."""
    angle = np.asarray(positions, dtype=float) * theta
    cos, sin = np.cos(angle), np.sin(angle)
    x, y = M[..., 0], M[..., 1]
    return np.stack([x * cos - y * sin, x * sin + y * cos], axis=-1)


def rope(M: np.ndarray) -> np.ndarray:
    """RoPE for d = 2, where the one frequency is 1: row p turned by p radians.  (n, 2)"""
    return turn(M, np.arange(M.shape[-2]))


def buggy_head(
    head: Head, bugs: SilentBugs, order: np.ndarray | None = None, masked: bool = True
) -> dict[str, np.ndarray]:
    """The head with `bugs` on, on the sentence read in `order` (token indices; the reading
    order when None), under the causal mask or none: its keys K, weights W and outputs."""
    order = np.arange(len(head.tokens)) if order is None else np.asarray(order)
    X = head.X[order]  # (n, d), one row per position
    Q, K, V = project(X, head.W_Q), project(X, head.W_K), project(X, head.W_V)
    if bugs.long_key_takeover:
        K[order == head.index("and")] *= STRETCH
    if not bugs.order_blind:
        Q, K = rope(Q), rope(K)
    S = Q @ K.T / (1.0 if bugs.scale_missing else math.sqrt(X.shape[1]))  # (n, n)
    mode = "multiply" if bugs.causal_mask_multiplied else "causal"
    W = softmax(apply_mask(S, mode if masked else "none"))
    return {"K": K, "W": W, "out": weighted_sum(W, V)}


def key_length_ratio(K: np.ndarray) -> float:
    """The longest key over the median key: what F26's assertion holds under KEY_LIMIT."""
    lengths = np.linalg.norm(K, axis=1)
    return float(lengths.max() / np.median(lengths))
