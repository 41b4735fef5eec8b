"""save_html's storage: quantised weights keep every invariant the full-precision map keeps."""

from __future__ import annotations

import base64
import gzip
import struct
import zlib

import numpy as np
import pytest

from selfattn.notebook.picture import WRONG, draw, png, still
from selfattn.notebook.store import decode, pack, quantise


def causal_weights(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    scores = np.where(np.tril(np.ones((n, n), dtype=bool)), rng.normal(size=(n, n)) * 3, -np.inf)
    w = np.exp(scores - scores.max(axis=1, keepdims=True))
    return w / w.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("bits", [8, 16])
@pytest.mark.parametrize("n", [1, 6, 97, 400])
def test_quantised_rows_still_sum_to_one_and_zeros_stay_zero(bits: int, n: int) -> None:
    w = causal_weights(n, seed=n)
    codes, scale = quantise(w, bits, np.ones(n, dtype=bool))
    full = (1 << bits) - 1
    assert codes.dtype == (np.uint8 if bits == 8 else np.uint16)
    stored = decode(codes, scale)
    assert np.abs(stored.sum(axis=1, dtype=np.float64) - 1).max() < 1e-6  # the page reads 1.000
    assert np.all(codes[w == 0] == 0) and np.all(codes[np.triu_indices(n, 1)] == 0)
    assert np.all(np.abs(stored - w).max(axis=1) <= 1.5 * w.max(axis=1) / full)


def test_a_row_that_does_not_sum_to_one_is_not_mended_and_a_broken_map_is_stored_exactly() -> None:
    w = causal_weights(6, seed=1)
    w[2] *= 1.5
    exact = np.ones(6, dtype=bool)
    exact[2] = False
    codes, scale = quantise(w, 16, exact)
    assert abs(decode(codes, scale)[2].sum() - 1.5) < 1e-3  # the page shows 1.500, as it is
    w[4, 1] = -0.1  # a negative weight: the head is kept as float32, to the last digit
    packed, error, _ = pack(w, 8, exact)
    stored = np.frombuffer(gzip.decompress(base64.b64decode(packed["gzip"])), "<f4")
    assert packed["bits"] == 32 and np.array_equal(stored, w.astype(np.float32).ravel())
    assert error < 1e-7


def test_a_packed_map_unpacks_to_its_codes_and_states_its_error() -> None:
    w = causal_weights(50, seed=2)
    packed, error, _ = pack(w, 8, np.ones(50, dtype=bool))
    stored = as_the_page_decodes(packed, gzip.decompress(base64.b64decode(packed["gzip"])))
    assert packed["bits"] == 8 and stored.shape == (50, 50)
    assert error == pytest.approx(np.abs(stored - w).max())
    with pytest.raises(ValueError, match="bits must be one of"):
        pack(w, 4, np.ones(50, dtype=bool))
    # the head a page opens on: the same codes, base64 as they are, decoded without a stream
    plain, same, _ = pack(w, 8, np.ones(50, dtype=bool), squeeze=False)
    assert set(plain) == {"bits", "rows", "codes"} and same == error
    assert np.array_equal(as_the_page_decodes(plain, base64.b64decode(plain["codes"])), stored)


def as_the_page_decodes(packed: dict, raw: bytes) -> np.ndarray:
    """Stored weights as common.js's decoded() reads them: each row's float32 scale, then
    the codes, each weight a float32 product code × scale."""
    rows, bits = packed["rows"], packed["bits"]
    scale = np.frombuffer(raw, "<f4", count=rows)
    codes = np.frombuffer(raw, "<u1" if bits == 8 else "<u2", offset=4 * rows)
    return (codes.reshape(rows, -1).astype(np.float32) * scale[:, None]).astype(np.float32)


def diffuse_weights(n: int, seed: int) -> np.ndarray:
    """Near-uniform causal rows, as GPT-2 built from a config gives at 1,024 tokens."""
    rng = np.random.default_rng(seed)
    scores = np.where(np.tril(np.ones((n, n), dtype=bool)), rng.normal(size=(n, n)) * 0.3, -np.inf)
    w = np.exp(scores - scores.max(axis=1, keepdims=True))
    return w / w.sum(axis=1, keepdims=True)


@pytest.mark.parametrize(
    "w",
    [np.full((8, 2048), 1 / 2048), diffuse_weights(1024, seed=3)[-64:]],
    ids=["uniform 2,048", "diffuse 1,024"],
)
def test_a_diffuse_row_in_8_bits_keeps_its_weights_and_its_largest(w: np.ndarray) -> None:
    """8 bits on one scale drew weights near 0.001 as 0, 0.0039 or 0.0078, named t0 the
    largest at 0.004 (truly t810 at 0.00247) and stated a bound above every weight."""
    packed, error, relative = pack(w, 8, np.ones(len(w), dtype=bool), squeeze=False)
    stored = as_the_page_decodes(packed, base64.b64decode(packed["codes"]))
    gap = np.abs(stored - w)
    assert gap.max() <= error and np.all(gap.max(axis=1) <= relative * w.max(axis=1))
    assert relative <= 1 / 255  # small against the row's weights: within a code of its largest
    # the largest weight the page names (the first cell reaching the row's maximum) is the true one
    assert np.array_equal(stored.argmax(axis=1), w.argmax(axis=1))
    assert np.allclose(stored.max(axis=1), w.max(axis=1), rtol=2e-3)
    assert np.abs(stored.sum(axis=1, dtype=np.float64) - 1).max() < 1e-6


def test_the_still_picture_is_a_png_of_the_map_with_a_leak_in_red() -> None:
    w = causal_weights(6, seed=3)
    pixels = draw(w, causal=True, wrong=[[1, 4]])
    cell = pixels.shape[0] // 6
    assert pixels.shape == (6 * cell, 6 * cell, 3)
    assert tuple(pixels[cell + cell // 2, 4 * cell + cell // 2]) == WRONG
    data = png(pixels)
    width, height = struct.unpack(">II", data[16:24])
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and width == height == 6 * cell
    assert zlib.decompress(data[41 : 41 + struct.unpack(">I", data[33:37])[0]])  # IDAT inflates
    found = [{"invariant": "causal", "ok": False, "message": "it leaks", "cells": [[1, 4]]}]
    text = still(w, found, causal=True, title="", where="weights[1]")
    assert "<figure" in text and "data:image/png;base64," in text
    assert "attention map, 6 tokens, weights[1]: causal: it leaks." in text
    long = draw(causal_weights(1200, seed=4), causal=True, wrong=[])
    assert long.shape[0] <= 480  # a long map is pooled to fit
