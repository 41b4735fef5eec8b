"""Compare: two maps of one shape side by side and B − A, from Python's numbers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import Browser, expect

from selfattn.notebook import show_compare, stills
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
    assert readout(page, "largest").startswith("largest difference: 5 · w5 → 2 · w2, B − A = +0.")
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


RED = """(panel) => {
  const root = document.querySelector('#selfattn-widget').shadowRoot;
  const c = root.querySelector(`[data-panel="${panel}"] canvas`);
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let count = 0;
  for (let i = 0; i < d.length; i += 4) if (d[i] > 150 && d[i + 1] < 90) count += 1;
  return count;
}"""


def test_both_maps_are_checked_and_a_leak_in_b_is_said_and_drawn(
    browser: Browser, tmp_path: Path, capsys
) -> None:
    """A future weight in B (its row then sums to 1.3) was drawn as a plain square, nothing
    printed, nothing failed: both maps are checked as the map view checks one."""
    a, _ = pair()
    a = a.reshape(2, 2, 16, 16)
    b = a.copy()
    b[1, 1, 2, 5] = 0.3
    m = show_compare(a, b, [f"w{i}" for i in range(16)], causal=True)
    assert capsys.readouterr().out.startswith(
        "selfattn: 1 of 4 heads breaks an invariant: B weights[1, 1] (rows sum to 1, causal)."
    )
    assert (m.layer, m.head) == (1, 1)  # it opens on the failing head
    assert m.failed == [
        "B weights[1, 1]: rows sum to 1: 1 row not summing to 1 (row 2: 1.3000)",
        "B weights[1, 1]: causal: 1 weight above the diagonal: the future leaks",
    ]
    assert "B weights[1, 1] (rows sum to 1, causal)" in m._still()
    assert repr(m).endswith("; 1 head breaks an invariant>")
    still = stills.compare(a[1, 1], b[1, 1], True, ([], [[2, 5]]))  # B's leak red in the still
    assert (still != stills.compare(a[1, 1], b[1, 1], True)).any()
    assert show_compare(a, a, causal=True).failed == []
    page, foreign, errors = open_file(browser, m.save_html(tmp_path / "leak.html"))
    assert page.locator('[data-readout="checks"] li').all_text_contents() == [
        "✗B: 1 row not summing to 1 (row 2: 1.3000)",
        "✗B: 1 weight above the diagonal: the future leaks",
    ]
    assert page.evaluate(RED, "b") > 0 and page.evaluate(RED, "a") == 0
    assert foreign == [] and errors == []
    page.close()
