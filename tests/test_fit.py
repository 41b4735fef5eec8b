"""The solver's grid stage and its look score (the full search runs in `selfattn fit`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("scipy")

from selfattn import fit
from selfattn.claims import failing
from selfattn.head import Head, load_head


@pytest.mark.parametrize("seed", range(3))
def test_milp_puts_a_nearby_real_head_back_on_the_grid(seed):
    head = load_head()
    rng = np.random.default_rng(seed)
    blurred = head.flat + rng.normal(scale=0.003, size=head.flat.shape)
    assert np.abs(np.round(blurred, 2) - blurred).max() > 0  # really off the grid
    repaired = fit.round_by_milp(blurred)
    assert repaired is not None
    assert failing(repaired) == []
    np.testing.assert_array_equal(np.round(repaired.flat, 2), repaired.flat)


def test_margins_are_positive_exactly_when_claims_hold():
    head = load_head()
    assert fit.claim_margins(head).min() > 0
    nudged = head.flat.copy()
    nudged[12] += 0.05  # W_Q[0, 0]
    other = Head.from_flat(head.tokens, nudged)
    assert fit.claim_margins(other).min() <= 0 and failing(other)


def test_look_score_prefers_spread_arrows():
    head = load_head()
    crowded = head.X.copy()
    crowded[:] = crowded[1]  # every token on cat's arrow
    bunched = Head(head.tokens, crowded, head.W_Q, head.W_K, head.W_V)
    assert fit.look_score(bunched) > fit.look_score(head)


def test_write_head_round_trips_in_the_committed_layout(tmp_path):
    from selfattn.head import load_head as load

    head = load_head()
    path = tmp_path / "head.json"
    fit.write_head(head, path)
    assert load(path).to_json() == head.to_json()
    committed = (Path(fit.__file__).parent / "head.json").read_text("utf-8")
    assert path.read_text("utf-8") == committed
