"""save_html's storage: quantised weights keep every invariant the full-precision map keeps."""

from __future__ import annotations

import base64
import gzip
import struct
import zlib

import numpy as np
import pytest

from selfattn.notebook.picture import WRONG, draw, png, still
from selfattn.notebook.store import pack, quantise


def causal_weights(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    scores = np.where(np.tril(np.ones((n, n), dtype=bool)), rng.normal(size=(n, n)) * 3, -np.inf)
    w = np.exp(scores - scores.max(axis=1, keepdims=True))
    return w / w.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("bits", [8, 16])
@pytest.mark.parametrize("n", [1, 6, 97, 400])
def test_quantised_rows_still_sum_to_one_and_zeros_stay_zero(bits: int, n: int) -> None:
    w = causal_weights(n, seed=n)
    codes = quantise(w, bits, np.ones(n, dtype=bool))
    full = (1 << bits) - 1
    assert codes.dtype == (np.uint8 if bits == 8 else np.uint16)
    assert np.all(codes.sum(axis=1, dtype=np.int64) == full)  # exactly 1 after decoding
    assert np.all(codes[w == 0] == 0) and np.all(codes[np.triu_indices(n, 1)] == 0)
    assert np.abs(codes / full - w).max() <= 1.5 / full


def test_a_row_that_does_not_sum_to_one_is_not_mended_and_a_broken_map_is_stored_exactly() -> None:
    w = causal_weights(6, seed=1)
    w[2] *= 1.5
    exact = np.ones(6, dtype=bool)
    exact[2] = False
    codes = quantise(w, 16, exact)
    assert abs(codes[2].sum() / 65535 - 1.5) < 1e-3  # the page shows 1.500, as it is
    w[4, 1] = -0.1  # a negative weight: the head is kept as float32, to the last digit
    packed, error = pack(w, 8, exact)
    stored = np.frombuffer(gzip.decompress(base64.b64decode(packed["gzip"])), "<f4")
    assert packed["bits"] == 32 and np.array_equal(stored, w.astype(np.float32).ravel())
    assert error < 1e-7


def test_a_packed_map_unpacks_to_its_codes_and_states_its_error() -> None:
    w = causal_weights(50, seed=2)
    packed, error = pack(w, 8, np.ones(50, dtype=bool))
    codes = np.frombuffer(gzip.decompress(base64.b64decode(packed["gzip"])), np.uint8)
    assert packed["bits"] == 8 and len(codes) == 50 * 50
    assert error == pytest.approx(np.abs(codes.reshape(50, 50) / 255 - w).max())
    with pytest.raises(ValueError, match="bits must be one of"):
        pack(w, 4, np.ones(50, dtype=bool))
    # the head a page opens on: the same codes, base64 as they are, decoded without a stream
    plain, same = pack(w, 8, np.ones(50, dtype=bool), squeeze=False)
    assert set(plain) == {"bits", "codes"} and same == error
    assert np.array_equal(np.frombuffer(base64.b64decode(plain["codes"]), np.uint8), codes)


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
