"""Hugging Face's `outputs.attentions`, a tuple of `(batch, heads, n, n)` layers, is copied
once into the stack the widgets draw: it was copied twice (np.take per layer, then np.stack),
which made show_map 6x slower on the tuple than on the same numbers as one array (24 s vs
4 s at 1,024 tokens). numpy's allocations are traced, so the peak says how many copies."""

from __future__ import annotations

import tracemalloc

import numpy as np

from selfattn.notebook import show_map
from selfattn.notebook.data import looks_causal
from selfattn.notebook.inputs import read_attention


def test_a_tuple_of_layers_is_copied_once() -> None:
    n, rng = 64, np.random.default_rng(0)
    layers = tuple(rng.random((1, 12, n, n), dtype=np.float32) for _ in range(12))
    size = 12 * 12 * n * n * 4
    tracemalloc.start()
    try:
        stack = read_attention(layers, batch=0).stack
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert stack.shape == (12, 12, n, n)
    assert np.array_equal(stack[3, 5], layers[3][0, 5])
    assert peak < 1.3 * size, f"{peak / size:.1f} copies of the stack"


def test_causal_is_read_alike_from_square_and_rectangular_maps() -> None:
    causal = np.tril(np.ones((5, 5), np.float32))
    assert looks_causal(causal) and not looks_causal(causal.T)
    assert looks_causal(np.tril(np.ones((3, 6)))) and not looks_causal(np.ones((3, 6)))
    widget = show_map(tuple(causal[None, None] / 5 for _ in range(2)), list("abcde"), batch=0)
    assert widget.causal


def test_torch_layers_are_stacked_by_torch_with_the_batch_and_axes_asked() -> None:
    torch = __import__("pytest").importorskip("torch")
    rng = np.random.default_rng(1)
    layers = [rng.random((2, 3, 5, 5), dtype=np.float32) for _ in range(4)]
    given = tuple(torch.from_numpy(layer) for layer in layers)
    assert np.array_equal(read_attention(given, batch=1).stack, np.stack(layers)[:, 1])
    flipped = tuple(x.permute(1, 0, 2, 3) for x in given)  # (heads, batch, n, n)
    found = read_attention(flipped, batch=1, axes="hbqk").stack
    assert np.array_equal(found, np.stack(layers)[:, 1])
    half = read_attention(tuple(x.bfloat16() for x in given), batch=0)
    assert half.stack.dtype == np.float32 and half.dtype == "bfloat16"
