"""The numbers behind the widgets: invariant checks, projections, weights."""

from __future__ import annotations

import numpy as np
import pytest

from selfattn.notebook import show_map
from selfattn.notebook.data import attention_weights, checks, full_cell, looks_causal, projection


def failed(w: np.ndarray, causal: bool) -> dict[str, dict]:
    return {c["invariant"]: c for c in checks(w, causal) if not c["ok"]}


def test_a_good_causal_map_keeps_every_invariant() -> None:
    w = np.tril(np.ones((5, 5)))
    w /= w.sum(axis=1, keepdims=True)
    assert failed(w, causal=True) == {} and looks_causal(w)


def test_each_broken_invariant_names_its_rows_and_cells() -> None:
    w = np.full((4, 4), 0.25)
    w[2, 1] = -0.25  # negative, and row 2 now sums to 0.5
    bad = failed(w, causal=True)
    assert bad["non-negative"]["cells"] == [[2, 1]]
    assert bad["rows sum to 1"]["rows"] == [2]
    assert [0, 1] in bad["causal"]["cells"] and [3, 2] not in bad["causal"]["cells"]
    assert "causal" not in failed(w, causal=False)
    w[0, 0] = np.nan
    assert failed(w, causal=False)["finite"]["cells"] == [[0, 0]]


def test_weights_match_a_naive_loop_and_respect_the_mask() -> None:
    rng = np.random.default_rng(1)
    q, k = rng.normal(size=(5, 3)), rng.normal(size=(5, 3))
    allowed = np.tril(np.ones((5, 5), dtype=bool))
    w = attention_weights(q, k, allowed)
    for i in range(5):
        scores = [sum(q[i, t] * k[j, t] for t in range(3)) / np.sqrt(3) for j in range(i + 1)]
        e = [np.exp(s) for s in scores]
        assert np.allclose(w[i, : i + 1], [x / sum(e) for x in e]) and not w[i, i + 1 :].any()


def test_projection_is_exact_in_two_dimensions_and_says_what_it_keeps_above() -> None:
    rng = np.random.default_rng(2)
    q, k = rng.normal(size=(6, 2)), rng.normal(size=(6, 2))
    (q2, k2), kept = projection(q, k)
    assert kept == 1.0 and np.array_equal(q2, q) and np.array_equal(k2, k)
    flat = np.column_stack([rng.normal(size=(6, 2)), np.zeros((6, 3))])
    (p,), kept = projection(flat)
    assert np.isclose(kept, 1.0) and np.allclose(
        np.linalg.norm(p, axis=1), np.linalg.norm(flat, axis=1)
    )
    (_,), kept = projection(rng.normal(size=(50, 16)))
    assert 0.05 < kept < 0.5


def test_a_long_map_is_scaled_so_one_spike_does_not_hide_the_rest() -> None:
    w = np.full((100, 100), 0.01)
    w[0] = 0
    w[0, 0] = 1
    assert full_cell(w) < 0.02 and full_cell(w[:6, :6]) == 1


def test_row_sums_are_held_to_what_the_dtype_the_weights_came_in_allows() -> None:
    w = np.tril(np.ones((6, 6)))
    w /= w.sum(axis=1, keepdims=True)
    w[3] *= 1.002  # a half-precision softmax lands about this far from 1
    assert show_map(w.astype(np.float32), list("abcdef")).failed != []
    assert show_map(w.astype(np.float16), list("abcdef")).failed == []
    torch = pytest.importorskip("torch")
    assert show_map(torch.tensor(w).to(torch.bfloat16), list("abcdef")).failed == []
    w[3] *= 1.05  # a real bug is caught in any dtype
    assert show_map(torch.tensor(w).to(torch.bfloat16), list("abcdef")).failed == [
        "weights: rows sum to 1: 1 row not summing to 1 (row 3: 1.0547)"
    ]


def test_failed_names_every_broken_head_and_the_map_opens_on_the_first(capsys) -> None:
    stack = np.full((3, 4, 4), 0.25)
    stack[2, 0, 1] = -0.25
    m = show_map(stack, list("abcd"))
    # one printed line names it, as Python indexes it; the map opens on it, not on head 0
    assert capsys.readouterr().out == (
        "selfattn: 1 of 3 heads breaks an invariant: weights[2] (non-negative, rows sum to 1)."
        " The map opened on weights[2]; m.failed says how.\n"
    )
    assert m.head == 2 and m.broken == [
        {"layer": 0, "head": 2, "invariants": ["non-negative", "rows sum to 1"]}
    ]
    assert m.failed == [
        "weights[2]: non-negative: 1 negative weight, the lowest -0.25",
        "weights[2]: rows sum to 1: 1 row not summing to 1 (row 0: 0.5000)",
    ]
    m.head = 0
    assert m.failed[0].startswith("weights[2]: ")  # whichever head is shown
    show_map(np.full((3, 4, 4), 0.25), list("abcd"))
    assert capsys.readouterr().out == ""  # nothing printed when every head passes
