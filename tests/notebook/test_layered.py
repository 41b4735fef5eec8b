"""Hugging Face's `outputs.attentions`, a tuple of `(batch, heads, n, n)` layers, is not
copied into one stack: each layer stays a view of what it came in, and a head is read from
it when checked, summarised or drawn. The copy was 600 MB at 12 × 12 × 1,024 (peak 579 MB
over baseline, 1.64 s); numpy's allocations are traced, so the peak says how much is copied."""

from __future__ import annotations

import tracemalloc

import numpy as np

from selfattn.notebook import show_heads, show_map
from selfattn.notebook.inputs import read_attention


def layers(n: int, count: int = 12, heads: int = 12) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(0)
    out = []
    for _ in range(count):
        w = np.tril(rng.random((1, heads, n, n), dtype=np.float32))
        out.append(w / w.sum(-1, keepdims=True))
    return tuple(out)


def peak_of(run) -> tuple[object, int]:
    tracemalloc.start()
    try:
        found = run()
        return found, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_reading_a_tuple_of_layers_copies_none_of_them() -> None:
    given = layers(128)
    size = 12 * 12 * 128 * 128 * 4
    reading, peak = peak_of(lambda: read_attention(given, batch=0))
    assert peak < 0.05 * size, f"{peak / size:.2f} of the stack copied"
    stack = reading.stack  # type: ignore[attr-defined]
    assert stack.shape == (12, 12, 128, 128)
    assert np.shares_memory(stack[3][5], given[3])
    flat = stack.reshape(-1, 128, 128)
    assert np.array_equal(flat[3 * 12 + 5], given[3][0, 5]) and len(list(flat)) == 144
    assert np.array_equal(np.asarray(stack), np.concatenate(given))


def test_show_map_and_show_heads_on_the_tuple_copy_a_head_not_the_stack() -> None:
    given = layers(128)
    size = 12 * 12 * 128 * 128 * 4
    given[7][0, 3, 2, 5] = 0.5  # layer 7, head 3 leaks
    m, peak = peak_of(lambda: show_map(given, causal=True))
    assert peak < 0.25 * size, f"{peak / size:.2f} of the stack copied"
    assert (m.layer, m.head) == (7, 3) and len(m.failed) == 2  # type: ignore[attr-defined]
    heads, peak = peak_of(lambda: show_heads(given, causal=True))
    assert peak < 0.5 * size, f"{peak / size:.2f} of the stack copied"
    table = heads.table  # type: ignore[attr-defined]
    whole = np.concatenate(given)
    assert np.allclose(table["first token"], whole[..., 0].mean(-1))
    assert np.allclose(table["largest weight"], whole.max(-1).mean(-1))
