"""The numbers the notebook widgets draw: invariant checks, projections, tensors as bytes."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

# how far a row's sum may stray from 1, by the dtype the weights came in: each weight is
# rounded to about half its dtype's epsilon, so a row of them sums to 1 only to about one
# epsilon (bfloat16 7.8e-3, float16 9.8e-4); float32 leaves room for a long row summed in
# float32 by the model itself
TOLERANCE = {"bfloat16": 1e-2, "float16": 2e-3, "float32": 1e-4, "float64": 1e-6}
MOST_CELLS = 2000  # cells listed per failed invariant; the count says how many there are


def dtype_name(x: Any) -> str:
    """The dtype `x` came in, as numpy, torch and JAX all spell it: "bfloat16", "float32"."""
    return str(getattr(x, "dtype", "float64")).removeprefix("torch.")


def as_array(x: Any) -> np.ndarray:
    """Anything with `__array__` (numpy, torch, JAX) as float32 when it came in 32 bits or
    fewer (12 layers of 12 heads at 1,024 tokens are 0.6 GB so, 1.2 GB as float64), else
    float64; torch tensors are detached."""
    narrow = dtype_name(x) in ("bfloat16", "float16", "float32")
    if hasattr(x, "detach"):
        x = x.detach().cpu()
    if dtype_name(x) == "bfloat16" and hasattr(x, "float"):
        x = x.float()
    return np.asarray(x, dtype=np.float32 if narrow else np.float64)


def floats(a: np.ndarray) -> bytes:
    """An array as little-endian float32, the widget's wire format: a notebook sends bytes
    as a binary buffer beside the JSON state (a DataView in the page), a quarter smaller
    than base64 text and nothing to decode; a saved page holds them as base64."""
    return np.ascontiguousarray(a, dtype="<f4").tobytes()


def _count(k: int, noun: str) -> str:
    return f"{k} {noun}" if k == 1 else f"{k} {noun}s"


_none = np.empty((0, 2), dtype=np.intp)  # no cell


def _listed(cells: np.ndarray) -> list[list[int]]:
    return [[int(i), int(j)] for i, j in cells[:MOST_CELLS]]


def checks(
    weights: np.ndarray, causal: bool, tolerance: float = TOLERANCE["float64"]
) -> list[dict[str, Any]]:
    """The article's assertions on one `(n, n)` map: finite, none negative, rows sum to 1,
    and with `causal` nothing above the diagonal. Each says which rows and cells fail.

    >>> [c["ok"] for c in checks(np.full((2, 2), 0.5), causal=False)]
    [True, True]
    """
    out = []
    # each test runs as one reduction first, and lists its cells (argwhere, a few ms a head)
    # only when one fails: 144 heads of 512 tokens are checked in a fraction of a second
    bad = _none if np.isfinite(weights).all() else np.argwhere(~np.isfinite(weights))
    if len(bad):
        out.append(
            {
                "invariant": "finite",
                "ok": False,
                "message": f"{_count(len(bad), 'weight')} NaN or infinite",
                "rows": sorted({int(i) for i, _ in bad}),
                "cells": _listed(bad),
            }
        )
    # nan_to_num copies and takes milliseconds a head even when nothing is to be replaced
    clean = np.nan_to_num(weights, nan=0.0, posinf=0.0, neginf=0.0) if len(bad) else weights
    negative = _none if clean.min(initial=0) >= 0 else np.argwhere(clean < 0)
    out.append(
        {
            "invariant": "non-negative",
            "ok": not len(negative),
            "message": (
                f"{_count(len(negative), 'negative weight')}, the lowest {clean.min():.3g}"
                if len(negative)
                else "no weight is negative"
            ),
            "rows": sorted({int(i) for i, _ in negative}),
            "cells": _listed(negative),
        }
    )
    sums = clean.sum(axis=1)
    off = np.flatnonzero(np.abs(sums - 1) > tolerance)
    worst = int(off[np.argmax(np.abs(sums[off] - 1))]) if len(off) else -1
    out.append(
        {
            "invariant": "rows sum to 1",
            "ok": not len(off),
            "message": (
                f"{_count(len(off), 'row')} not summing to 1 "
                f"(row {worst}: {_row_sum(weights, worst)})"
                if len(off)
                else f"every row sums to 1 (within {tolerance:g})"
            ),
            "rows": [int(i) for i in off],
            "cells": [],
        }
    )
    if causal:
        leaks = np.argwhere(np.triu(clean != 0, k=1)) if not looks_causal(clean) else _none
        out.append(
            {
                "invariant": "causal",
                "ok": not len(leaks),
                "message": (
                    f"{_count(len(leaks), 'weight')} above the diagonal: the future leaks"
                    if len(leaks)
                    else "no weight above the diagonal"
                ),
                "rows": sorted({int(i) for i, _ in leaks}),
                "cells": _listed(leaks),
            }
        )
    return out


def part_of_rows(found: list[dict[str, Any]], weights: np.ndarray, tolerance: float) -> None:
    """`checks` of a block cut from a larger map (one sentence of a pair over the other): its
    rows are parts of rows, so each need only sum to at most 1; the row check is replaced so,
    in place."""
    sums = np.nan_to_num(weights, nan=0.0, posinf=0.0, neginf=0.0).sum(axis=1)
    over = [int(i) for i in np.flatnonzero(sums > 1 + tolerance)]
    for k, c in enumerate(found):
        if c["invariant"] == "rows sum to 1":
            found[k] = {
                "invariant": "rows sum to at most 1",
                "ok": not over,
                "message": (
                    f"{_count(len(over), 'row')} summing past 1 "
                    f"(row {over[0]}: {sums[over[0]]:.4f})"
                    if over
                    else "no row sums past 1 (a part of a map: its rows need not reach 1)"
                ),
                "rows": over,
                "cells": [],
            }


def head_checks(
    flat: np.ndarray, causal: bool, dtype: str, part: bool = False
) -> list[list[dict[str, Any]]]:
    """`checks` of every head of a `(heads, n, n)` stack, within the tolerance of the dtype
    the weights came in; with `part`, of blocks cut from larger maps (`part_of_rows`)."""
    tolerance = TOLERANCE.get(dtype, TOLERANCE["float64"])
    found = [checks(w, causal, tolerance) for w in flat]
    if part:  # a block of a larger map: its rows are parts of rows
        for each, w in zip(found, flat, strict=True):
            part_of_rows(each, w, tolerance)
    return found


def full_cell(weights: np.ndarray, exact_up_to: int = 24) -> float:
    """The weight whose square fills a cell: the largest, on a map small enough to read cell
    by cell; on a long one the 99.5th percentile, so one spike (the first token's 1.0) does
    not shrink every other square to nothing. Larger weights fill their cell."""
    magnitude = np.abs(weights[np.isfinite(weights)])
    magnitude = magnitude[magnitude > 0]
    if not magnitude.size:
        return 1.0
    if weights.shape[-1] <= exact_up_to:
        return float(magnitude.max())
    return max(float(np.quantile(magnitude, 0.995)), 1e-6)


@functools.lru_cache(maxsize=4)
def _above(m: int, n: int) -> np.ndarray:
    """True above the diagonal of an (m, n) map, made once per shape: np.triu made a float
    copy of every head's map, 0.4 s of show_map's 1.7 s on 144 heads at 512 tokens."""
    above = np.triu(np.ones((m, n), dtype=bool), k=1)
    above.flags.writeable = False
    return above


def looks_causal(weights: np.ndarray) -> bool:
    """Whether every weight above the diagonal is exactly zero (what `causal=None` infers)."""
    n = weights.shape[-1]
    return n > 1 and not np.logical_and(weights, _above(*weights.shape[-2:])).any()


def projection(*groups: np.ndarray) -> tuple[list[np.ndarray], float]:
    """The groups' rows on their two principal directions, and the share of variance kept.

    Directions come from the groups stacked, uncentred, so the origin stays where dot
    products measure from; with d = 2 the points come back as they are (share 1).
    """
    stacked = np.concatenate(groups)
    d = stacked.shape[1]
    if d == 2:
        return list(groups), 1.0
    if d == 1:
        return [np.column_stack([g[:, 0], np.zeros(len(g))]) for g in groups], 1.0
    _, s, vt = np.linalg.svd(stacked, full_matrices=False)
    basis = vt[:2].T  # (d, 2)
    # a direction's sign is arbitrary: turn each so the points lean to the positive side
    basis *= np.where((stacked @ basis).sum(axis=0) < 0, -1, 1)
    total = float((s**2).sum())
    kept = float((s[:2] ** 2).sum() / total) if total else 1.0
    return [g @ basis for g in groups], kept


def attention_weights(
    q: np.ndarray,
    k: np.ndarray,
    allowed: np.ndarray | None,
    scale: float | None = None,
    softcap: float | None = None,
) -> np.ndarray:
    """softmax(q kᵀ · scale) row by row (scale 1/√d unless the layer says otherwise, as
    Gemma 2's query_pre_attn_scalar does), scores capped to ±softcap by tanh where the layer
    caps them, and keys a query may not see set to −∞ first."""
    scores = q @ k.T * (scale if scale is not None else 1 / np.sqrt(q.shape[1]))  # (n, n)
    if softcap:
        scores = np.tanh(scores / softcap) * softcap
    if allowed is not None:
        scores = np.where(allowed, scores, -np.inf)
    top = scores.max(axis=1, keepdims=True)
    e = np.exp(scores - np.where(np.isfinite(top), top, 0))
    total = e.sum(axis=1, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)


def weight_text(x: float) -> str:
    """A weight as the pages print it (common.js weightText): three decimals from 0.01, two
    significant digits below, so a diffuse row's 0.00049 is not 0.000."""
    return f"{x:.3f}" if x == 0 or not np.isfinite(x) or abs(x) >= 0.01 else f"{x:.2g}"


def _row_sum(weights: np.ndarray, row: int) -> str:
    """Row `row`'s sum as printed: NaN or ±inf where the row holds one (its cleaned sum, the
    NaN read as 0, printed 0.0000 for a row that sums to nothing at all: hostile pass 7)."""
    with np.errstate(all="ignore"):
        total = float(weights[row].sum())
    return f"{total:.4f}" if np.isfinite(total) else str(total)
