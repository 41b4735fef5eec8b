"""A randomized drive of every figure: thousands of key presses and drags, nothing breaks.

The drive runs inside the page (random_drive.js), one evaluate per figure, on one page
shared by the whole module; each snapshot it returns is checked here.
"""

from __future__ import annotations

import json
import zlib

import pytest

from .drive import DRIVE, FIGURES, KEYS, check_clean, number

STEPS = 200

TOKENS = ["the", "cat", "ate", "and", "it", "ran"]


def check(figure_id: str, snapshot: dict) -> None:
    """Every read-out printable, and the invariants of attention wherever a figure shows them."""
    step, state = snapshot["step"], snapshot["state"]
    shown = check_clean(figure_id, snapshot["shown"], f"at step {step}")
    where = (figure_id, step, shown)
    if "sum" in shown and not shown["sum"].startswith("["):  # a row of weights sums to one
        assert abs(number(shown["sum"]) - 1) < 1e-9, where
    if "inside" in shown:  # a convex mix cannot leave the values' polygon
        assert shown["inside"] in ("yes", "是"), where
    if figure_id == "multiply-leak" and not state["multiply"]:
        assert number(shown["leaked"]) == 0, where  # −∞ leaves exactly nothing, all rows
    if figure_id == "attention-map":  # row it prints its weights, each masked cell its 0
        i = TOKENS.index("it")
        row = [number(shown[f"W.it.{key}"]) for key in TOKENS]
        assert all(w >= 0 for w in row) and abs(sum(row) - 1) < 0.04, where
        if state["causal"]:
            assert all(w == 0 for w in row[i + 1 :]), where  # masked weights exactly zero
            masked = [shown[f"W.{q}.{k}"] for a, q in enumerate(TOKENS) for k in TOKENS[a + 1 :]]
            assert all(w == "0" for w in masked), where


@pytest.mark.parametrize("figure_id", FIGURES)
def test_random_keys_and_drags_never_break_a_figure(shared_en, figure_id):
    page = shared_en.page
    seed = zlib.crc32(figure_id.encode())
    drive = page.evaluate(DRIVE, [figure_id, seed, STEPS, KEYS])
    assert drive["controls"] > 0
    assert drive["acted"] > STEPS // 4, drive["acted"]  # many steps reached a live control
    assert len(drive["snapshots"]) == STEPS // 10 + 1
    moved = {json.dumps(s["state"], sort_keys=True) for s in drive["snapshots"]}
    assert len(moved) > 1, "the drive never changed the figure's state"
    for snapshot in drive["snapshots"]:
        check(figure_id, snapshot)
    assert shared_en.errors == [], shared_en.errors
