"""The heads view's numbers: each summary against a loop, and the thumbnails' pooling."""

from __future__ import annotations

import math

import numpy as np

from selfattn.notebook.summaries import MASKED, SHADES, finite, summaries, thumbnails
from tests.notebook.test_standalone import causal_weights


def test_each_summary_matches_a_loop_over_rows() -> None:
    stack = np.stack([causal_weights(7, seed) for seed in range(3)])
    found = summaries(stack, {"diagonal": lambda w: float(np.trace(w))})
    for k, w in enumerate(stack):
        rows = range(7)
        entropy = sum(-sum(x * math.log(x) for x in w[i] if x > 0) for i in rows) / 7
        assert math.isclose(found["entropy"][k], entropy)
        assert math.isclose(found["largest weight"][k], sum(max(w[i]) for i in rows) / 7)
        assert math.isclose(found["first token"][k], sum(w[i][0] for i in rows) / 7)
        assert math.isclose(found["previous token"][k], sum(w[i][i - 1] for i in rows[1:]) / 6)
        assert math.isclose(found["diagonal"][k], sum(w[i][i] for i in rows))


def test_the_known_heads_sort_where_they_should() -> None:
    n = 6
    previous = np.eye(n, k=-1)
    previous[0, 0] = 1
    first = np.zeros((n, n))
    first[:, 0] = 1
    uniform = np.tril(np.ones((n, n)))
    uniform /= uniform.sum(axis=1, keepdims=True)
    found = summaries(np.stack([previous, first, uniform]))
    assert np.argmax(found["previous token"]) == 0 and np.argmax(found["first token"]) == 1
    assert np.argmax(found["entropy"]) == 2 and found["entropy"][0] == found["entropy"][1] == 0


def test_a_thumbnail_draws_each_block_by_its_largest_weight_and_knows_the_mask() -> None:
    w = causal_weights(100)
    w[60, 3] = 0.9  # one sharp cell in block (6, 0) at 10 × 10
    codes, m = thumbnails(w[None], side=10, causal=True)
    assert m == 10 and codes.shape == (1, 10, 10) and codes.dtype == np.uint8
    assert codes[0, 6, 0] == SHADES  # the largest block fills
    assert codes[0, 0, 1] == MASKED and codes[0, 1, 1] != MASKED  # the diagonal block is not
    assert (codes[0][np.triu_indices(10, 1)] == MASKED).all()
    odd, m = thumbnails(np.ones((2, 7, 7)) / 7, side=3, causal=False)
    assert m == 3 and odd.shape == (2, 3, 3) and (odd == SHADES).all()


def test_nan_and_inf_read_as_the_cleaned_map_without_copying_a_clean_stack() -> None:
    w = np.stack([causal_weights(30, seed) for seed in range(2)]).astype(np.float32)
    broken, cleaned = w.copy(), w.copy()
    broken[0, 20, 3], cleaned[0, 20, 3] = np.nan, 0.0
    broken[1, 9, 2], cleaned[1, 9, 2] = np.inf, 1.0  # past any scale: fills its block
    codes, _ = thumbnails(broken, side=10, causal=True)
    assert np.array_equal(codes, thumbnails(cleaned, side=10, causal=True)[0])
    broken[1, 9, 2], cleaned[1, 9, 2] = np.inf, 0.0  # a summary counts inf as nothing
    found, expected = summaries(broken), summaries(cleaned)
    assert all(np.allclose(found[name], expected[name]) for name in expected)
    assert finite(w) is w  # a clean 150 MB stack is not copied
