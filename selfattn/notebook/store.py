"""How save_html stores a map: weights quantised to 8 or 16 bits, rows renormalised, gzipped.

A stored map keeps every invariant the full-precision map keeps: a row that sums to 1 is
rescaled to sum to exactly 1 and its codes nudged so they add up to the full code (the page
reads 1.000), a zero stays exactly zero (a masked cell stays masked), and no weight turns
negative. A map that breaks non-negativity or finiteness, or holds a weight above 1, is
stored as float32, so the file shows exactly what is wrong with it.

>>> packed, error = pack(np.full((2, 2), 0.5), bits=8, rows_sum_to_one=np.ones(2, bool))
>>> packed["bits"], round(error, 4)
(8, 0.002)
"""

from __future__ import annotations

import base64
import gzip
from typing import Any

import numpy as np

BITS = (8, 16)
LEVEL = 6  # gzip's default: level 9 is a third slower for a few percent


def _nudge(codes: np.ndarray, key: np.ndarray, counts: np.ndarray, by: int) -> None:
    """Add `by` to the `counts[i]` cells of each row i with the largest `key`, in place."""
    most = int(counts.max(initial=0))
    if not most:
        return
    rows = np.flatnonzero(counts)
    top = np.argpartition(-key[rows], most - 1, axis=1)[:, :most]  # (rows, most), unsorted
    order = np.argsort(-np.take_along_axis(key[rows], top, axis=1), axis=1)
    top = np.take_along_axis(top, order, axis=1)
    chosen = np.arange(most) < counts[rows, None]
    np.add.at(codes, (np.repeat(rows, chosen.sum(axis=1)), top[chosen]), by)


def quantise(weights: np.ndarray, bits: int, rows_sum_to_one: np.ndarray) -> np.ndarray:
    """Codes 0..2**bits − 1 for weights in [0, 1]; the rows marked `rows_sum_to_one` are
    rescaled to sum to 1 first and their codes sum to exactly 2**bits − 1."""
    full = (1 << bits) - 1
    w = np.asarray(weights, dtype=np.float64)
    sums = w.sum(axis=1, keepdims=True)
    exact = rows_sum_to_one & (sums[:, 0] > 0)
    x = np.where(exact[:, None], w / np.where(sums > 0, sums, 1), w) * full
    codes = np.rint(x).astype(np.int64)
    residual = x - codes  # in [−0.5, 0.5]: how far each code was rounded down
    short = np.where(exact, full - codes.sum(axis=1), 0)  # |short| ≤ half the nonzero cells
    _nudge(codes, np.where(w > 0, residual, -np.inf), np.maximum(short, 0), 1)
    _nudge(codes, np.where(codes > 0, -residual, -np.inf), np.maximum(-short, 0), -1)
    return codes.astype(np.uint8 if bits == 8 else np.uint16)


def pack(
    weights: np.ndarray, bits: int, rows_sum_to_one: np.ndarray
) -> tuple[dict[str, Any], float]:
    """One `(n, n)` map as the page reads it, `{"bits", "gzip"}` (base64 of gzipped
    little-endian codes or float32), and the largest distance of a stored weight from the
    given one."""
    if bits not in BITS:
        raise ValueError(f"bits must be one of {BITS}, not {bits}")
    w = np.asarray(weights, dtype=np.float64)
    if np.all(np.isfinite(w)) and w.min(initial=0) >= 0 and w.max(initial=0) <= 1:
        codes = quantise(w, bits, rows_sum_to_one)
        stored = codes / ((1 << bits) - 1)
        raw = codes.astype(codes.dtype.newbyteorder("<")).tobytes()
    else:
        bits = 32
        stored = w.astype(np.float32)
        raw = stored.astype("<f4").tobytes()
    error = np.abs(np.nan_to_num(stored - w, nan=0.0, posinf=0.0, neginf=0.0))
    packed = {"bits": bits, "gzip": base64.b64encode(gzip.compress(raw, LEVEL, mtime=0))}
    return {**packed, "gzip": packed["gzip"].decode("ascii")}, float(error.max(initial=0))
