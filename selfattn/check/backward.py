"""The backward pass in float64 and the known ways hand-written backward passes get it wrong.

With P = softmax(scale * q k^T [masked]) and O = P v, the gradients for an upstream dO are
(FlashAttention-2, equations 13-19):

    dv = P^T dO,   dP = dO v^T,   dS = P * (dP - rowsum(dO * O)),
    dq = scale * dS k,   dk = scale * dS^T q.

A FlashAttention-style backward recomputes P from q, k and the log-sum-exp the forward saved;
each bug below is one of these lines written otherwise, as data.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .reference import ATOL, FUDGE, Precision, Variant

Array = np.ndarray
NAMES = ("dq", "dk", "dv")


@dataclass(frozen=True)
class Backward:
    """One way of computing dq, dk, dv: the right one (id None) or a known bug."""

    id: str | None
    detail: str
    scaled: bool = True  # dq, dk carry the score scale
    row_term: bool = True  # dS = P * (dP - rowsum(dO * O)), not P * dP
    # P in the backward: "lse" exp(s - lse) | "unmasked" | "max" | "causal": exp(s - lse) of
    # the unmasked forward, with the causal mask put on in the backward only
    recompute: str = "lse"


RIGHT = Backward(None, "the float64 reference's gradients")
BUGS: tuple[Backward, ...] = (
    Backward("backward-scale-missing", "dq = dS k, dk = dS^T q: no scale", scaled=False),
    Backward("backward-softmax-no-row-term", "dS = P * dP: no row term", row_term=False),
    Backward(
        "backward-causal-leak",
        "P recomputed as exp(s - lse) without the causal mask",
        recompute="unmasked",
    ),
    Backward(
        "backward-stale-weights",
        "P recomputed as exp(s - m) with the row max m saved instead of the log-sum-exp",
        recompute="max",
    ),
    Backward(
        "backward-causal-always",
        "P recomputed with the causal mask although the forward had none",
        recompute="causal",
    ),
)


def scale_of(forward: Variant, d: int) -> float | None:
    """The score scale of a forward reference whose gradients are modelled here, else None."""
    if forward.cap or forward.features or forward.norm != "softmax":
        return None
    if forward.scores == "sdpa":
        return 1 / np.sqrt(d)
    return forward.p if forward.scores == "alpha" else None


def keep_of(forward: Variant, n: int, causal: bool) -> Array | None:
    """Which keys each query sees: the causal mask when causal, within the forward's window."""
    return replace(forward, keep="causal" if causal else None).kept(n)


def grads(
    q: Array,
    k: Array,
    v: Array,
    do: Array,
    scale: float,
    keep: Array | None,
    how: Backward = RIGHT,
    dtype: type = np.float64,
) -> dict[str, Array]:
    """dq, dk, dv of sum(dO * O) computed as `how` says, in `dtype`, returned as float64."""
    q, k, v, do = (np.asarray(x, dtype=dtype) for x in (q, k, v, do))
    c = dtype(scale)
    with np.errstate(all="ignore"):
        s = c * (q @ k.T)
        sm = np.where(keep, s, dtype(-np.inf)) if keep is not None else s
        m = sm.max(axis=-1, keepdims=True)
        lse = m + np.log(np.exp(sm - m).sum(axis=-1, keepdims=True))
        p = np.exp(sm - lse)
        o = p @ v
        tril = np.tril(np.ones(s.shape, dtype=bool))
        pb = {
            "lse": p,
            "unmasked": np.exp(s - lse),
            "max": np.exp(sm - m),
            "causal": np.where(tril, p, dtype(0.0)),
        }[how.recompute]
        dv = pb.T @ do
        dp = do @ v.T
        ds = pb * (dp - (do * o).sum(axis=-1, keepdims=True)) if how.row_term else pb * dp
        c = c if how.scaled else dtype(1.0)
        out = {"dq": c * (ds @ k), "dk": c * (ds.T @ q), "dv": dv}
    return {name: np.asarray(g, dtype=np.float64) for name, g in out.items()}


@dataclass(frozen=True)
class Gap:
    """How a target's gradients compare with one way of computing them, on one input."""

    ok: bool
    worst: str  # the gradient furthest off, relative to its tolerance
    err: float
    tol: float


def compare(
    got: dict[str, Array], want: dict[str, Array], low: dict[str, Array], lp: Precision
) -> Gap:
    """Each gradient within a multiple of what the same formula errs in low precision."""
    ratios = []
    for name in NAMES:
        r, g = want[name], got[name]
        if g.shape != r.shape or not np.isfinite(g).all():
            return Gap(False, name, float("inf"), 0.0)
        lp_err = float(np.max(np.abs(low[name] - r))) * lp.factor
        lp_err = lp_err if np.isfinite(lp_err) else 0.0
        tol = max(FUDGE * lp_err, ATOL * max(1.0, float(np.max(np.abs(r)))))
        err = float(np.max(np.abs(g - r)))
        ratios.append((err / tol, name, err, tol))
    ratio, name, err, tol = max(ratios)
    return Gap(ratio <= 1.0, name, err, tol)
