"""How save_html stores a map: weights quantised to 8 or 16 bits relative to each row's
largest weight, with a float32 scale per row, rows renormalised, gzipped.

A stored map keeps every invariant the full-precision map keeps: a row that sums to 1 is
rescaled to sum to 1 and stored as codes over their sum (the page reads 1.000), a zero stays
exactly zero (a masked cell stays masked), no weight turns negative, and each row's largest
weight is the one the page names. A map that breaks non-negativity or finiteness, or holds a
weight above 1, is stored as float32, so the file shows exactly what is wrong with it.

>>> packed, error, relative = pack(np.full((2, 2), 0.5), bits=8, rows_sum_to_one=np.ones(2, bool))
>>> packed["bits"], error, relative
(8, 0.0, 0.0)
"""

from __future__ import annotations

import base64
import gzip
from typing import Any

import numpy as np

BITS = (8, 16)
# the most weights, in bytes before compression, a saved page may hold: 144 heads of 1,024
# tokens in 8 bits (151 MB, a 25 MB file) open in a second; 144 of 2,048 in 16 bits (1.2 GB,
# a 402 MB file) never drew in two minutes. Past this save_html refuses, saying what to keep.
MOST_BYTES = 320e6
LEVEL = 1  # 15× faster than gzip's default 6 on 8-bit codes, for a file about 20% larger


def _nudge(codes: np.ndarray, key: np.ndarray, allowed: np.ndarray, counts: np.ndarray) -> None:
    """Move by one code, toward `counts`' sign, the |counts[i]| cells of each row i that
    `allowed` lets move and whose `key` is largest, in place."""
    # a row with fewer cells free to move than it is short moves those it has
    counts = np.sign(counts) * np.minimum(np.abs(counts), allowed.sum(axis=1))
    most = int(np.abs(counts).max(initial=0))
    if not most:
        return
    rows = np.flatnonzero(counts)
    sign = np.sign(counts[rows])[:, None]
    # float32 like the key (a float64 copy makes argpartition 2× slower)
    ranked = np.where(allowed[rows], key[rows] * sign.astype(key.dtype), -np.inf)  # (rows, n)
    top = np.argpartition(-ranked, most - 1, axis=1)[:, :most]  # (rows, most), unsorted
    order = np.argsort(-np.take_along_axis(ranked, top, axis=1), axis=1)
    top = np.take_along_axis(top, order, axis=1)
    chosen = np.arange(most) < np.abs(counts[rows, None])
    # each (row, cell) pair is chosen once, so a plain indexed add is exact (no np.add.at)
    codes[np.repeat(rows, chosen.sum(axis=1)), top[chosen]] += np.repeat(
        sign[:, 0], chosen.sum(axis=1)
    )


def quantise(
    weights: np.ndarray, bits: int, rows_sum_to_one: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Codes 0..2**bits − 1 relative to each row's largest weight, and each row's float32
    scale (a weight is code × scale). A row's largest weight has the full code and no other
    cell of a smaller weight does (the page names the true largest); the rows marked
    `rows_sum_to_one` are rescaled to sum to 1 first and stored summing to 1.

    Codes on one scale for the whole map (code / full) drew a diffuse row of 1,024 tokens,
    weights near 0.001, in three codes and named the wrong key largest: relative codes keep
    every weight within about one code of its row's largest (1/255 in 8 bits)."""
    full = (1 << bits) - 1
    w = np.asarray(weights, dtype=np.float32)  # 24 bits of mantissa: room for 16-bit codes
    sums = w.sum(axis=1, dtype=np.float64)
    exact = rows_sum_to_one & (sums > 0)
    w = w * np.where(exact, 1 / np.where(sums > 0, sums, 1), 1).astype(np.float32)[:, None]
    most = w.max(axis=1, initial=0)
    x = w * (full / np.where(most > 0, most, 1)).astype(np.float32)[:, None]
    rounded = np.rint(x)
    codes = rounded.astype(np.int32)
    # a smaller weight that rounds up to the full code is kept one below it
    codes[(codes == full) & (w < most[:, None])] = full - 1
    residual = x - codes  # how far each code was rounded down, float32
    # a row that sums to 1 is stored as codes / their sum: nudge that sum to full / largest,
    # so the largest weight decodes to itself; never on a zero, never at or onto the full code
    goal = np.rint(full / np.where(most > 0, most, 1)).astype(np.int64)
    short = np.where(exact, goal - codes.sum(axis=1, dtype=np.int64), 0)
    up = (w > 0) & (codes < full - 1)
    down = (codes > 0) & (codes < full)
    _nudge(codes, residual, np.where(short[:, None] > 0, up, down), short)
    total = codes.sum(axis=1, dtype=np.int64)
    scale = np.where(exact, 1 / np.where(total > 0, total, 1), most / full)
    return codes.astype(np.uint8 if bits == 8 else np.uint16), scale.astype(np.float32)


def pack(
    weights: np.ndarray, bits: int, rows_sum_to_one: np.ndarray, squeeze: bool = True
) -> tuple[dict[str, Any], float, float]:
    """One `(n, nk)` map as the page reads it, `{"bits", "rows", "gzip"}` (base64 of gzipped
    little-endian bytes) or, without `squeeze`, `{"bits", "rows", "codes"}` (base64 of them
    as they are); the largest distance of a stored weight from the given one; and the
    largest such distance as a fraction of its row's largest weight.

    In 8 or 16 bits the bytes are each row's float32 scale, then the codes (a weight is
    code × its row's scale, in float32, as common.js decodes it); in 32 bits the float32
    weights. The head a page opens on is stored unsqueezed: the browser ungzips only
    through a stream, a few tasks and 10-15 ms before the first drawing; base64 decodes
    at once."""
    if bits not in BITS:
        raise ValueError(f"bits must be one of {BITS}, not {bits}")
    w = np.asarray(weights)
    if np.all(np.isfinite(w)) and w.min(initial=0) >= 0 and w.max(initial=0) <= 1:
        codes, scale = quantise(w, bits, rows_sum_to_one)
        stored = decode(codes, scale)
        raw = scale.astype("<f4").tobytes() + codes.astype(codes.dtype.newbyteorder("<")).tobytes()
    else:
        bits = 32
        stored = w.astype(np.float32)
        raw = stored.astype("<f4").tobytes()
    gap = stored - w.astype(np.float64)
    error = np.abs(gap if bits < 32 else np.nan_to_num(gap, nan=0.0, posinf=0.0, neginf=0.0))
    most = np.abs(np.nan_to_num(w.astype(np.float64), posinf=0.0, neginf=0.0)).max(axis=1)
    relative = (error.max(axis=1, initial=0) / np.where(most > 0, most, 1)).max(initial=0)
    packed: dict[str, Any] = {"bits": bits, "rows": int(w.shape[0])}
    if squeeze:
        packed["gzip"] = _text(gzip.compress(raw, LEVEL, mtime=0))
    else:
        packed["codes"] = _text(raw)
    return packed, float(error.max(initial=0)), float(relative)


def decode(codes: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """Weights from codes and row scales as the page computes them: each a float32 product."""
    return codes.astype(np.float32) * scale.astype(np.float32)[:, None]


def check_size(heads: int, shape: tuple[int, ...], bits: int) -> None:
    """Refuse a page a browser will not open: more than MOST_BYTES of weights."""
    size = heads * int(np.prod(shape)) * bits / 8
    if size > MOST_BYTES:
        raise ValueError(
            f"{heads} heads of {' × '.join(map(str, shape))} in {bits} bits hold "
            f"{size / 1e6:,.3g} MB of weights, past the {MOST_BYTES / 1e6:,.3g} MB a browser "
            "opens in reasonable time: keep fewer (layers=[...], heads=[...])"
            + (" or store them in 8 bits (bits=8)" if bits > 8 else "")
        )


def _text(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")
