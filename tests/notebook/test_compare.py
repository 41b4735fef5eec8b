"""Compare: two maps of one shape side by side and B − A, from Python's numbers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import Browser, expect

from selfattn.notebook import show_compare
from tests.notebook.test_standalone import causal_weights, open_file, readout


def pair() -> tuple[np.ndarray, np.ndarray]:
    a = np.stack([causal_weights(16, seed) for seed in range(4)])  # (4 heads, 16, 16)
    b = a.copy()
    b[0, 5] = 0
    b[0, 5, 2] = 1  # head 1, row w5: all of its weight moves to w2
    b[2] = causal_weights(16, 9)
    return a, b


def test_the_difference_and_the_heads_that_differ_are_computed_in_python() -> None:
    a, b = pair()
    m = show_compare(a, b, [f"Ġw{i}" for i in range(16)], names=("before", "after"))
    assert m.tokens[5] == "w5" and m.raw[5] == "Ġw5"
    assert m.differ[1] == m.differ[3] == 0 and m.differ[0] == pytest.approx(1 - a[0, 5, 2])
    assert m.largest == {"row": 5, "column": 2, "value": pytest.approx(1 - a[0, 5, 2])}
    m.head = 2
    assert m.largest["value"] == pytest.approx((b[2] - a[2]).flat[np.abs(b[2] - a[2]).argmax()])
    two = show_compare(a[0], b[0], list("abcdefghijklmnop"), tokens_b=list("abcdeXghijklmnop"))
    assert two.tokens[5] == "f/X" and two.tokens[4] == "e"
    with pytest.raises(ValueError, match="differ in shape"):
        show_compare(a, b[:3])


def test_the_three_maps_share_the_pointer_and_the_heads_button_opens_a_head(
    browser: Browser, tmp_path: Path
) -> None:
    a, b = pair()
    path = show_compare(a, b, [f"w{i}" for i in range(16)], names=("A", "B")).save_html(
        tmp_path / "compare.html"
    )
    page, foreign, errors = open_file(browser, path)
    assert page.locator("canvas").count() == 3
    assert readout(page, "largest").startswith("largest difference: w5 → w2, B − A = +0.")
    diff = page.locator('[data-panel="diff"] canvas').bounding_box()
    assert diff
    page.mouse.move(diff["x"] + diff["width"] * 0.6, diff["y"] + diff["height"] * 0.9)
    said = readout(page, "hover")
    assert " · B " in said and "B − A" in said
    assert page.locator(".canvas-grid .ring:visible").count() == 3  # all three show the cell
    page.get_by_role("button", name="head 2: 0.").click()
    expect(page.locator('[data-readout="head"]')).to_have_text("2 of 0–3")
    assert foreign == [] and errors == []
    page.close()
