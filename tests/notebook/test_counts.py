"""A rectangular map (cross-attention, a sentence pair) is counted as queries × keys in its
still's caption and its repr: "attention map, 6 tokens" for 11 queries over 6 keys counted
the keys alone."""

from __future__ import annotations

import numpy as np

from selfattn.notebook import show_map


def test_a_rectangular_map_counts_its_queries_and_its_keys() -> None:
    rng = np.random.default_rng(0)
    w = rng.random((11, 6))
    w /= w.sum(axis=1, keepdims=True)
    m = show_map(w, [f"q{i}" for i in range(11)], key_tokens=[f"k{i}" for i in range(6)])
    assert "attention map, 11 queries × 6 keys" in m._still()
    assert repr(m).startswith("<AttentionMap: 11 queries × 6 keys, shape (11, 6)")
    square = show_map(np.full((6, 6), 1 / 6), list("abcdef"))
    assert "attention map, 6 tokens" in square._still()
    assert repr(square).startswith("<AttentionMap: 6 tokens, shape (6, 6)")
