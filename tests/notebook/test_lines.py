"""The lines view: one head as BertViz's head view draws it, moved by hover and by keys."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import Browser, expect

from selfattn.notebook import show_lines
from tests.notebook.test_standalone import TOKENS, causal_weights, open_file, readout

BOXES = """() => [...document.querySelector('#selfattn-widget').shadowRoot
  .querySelectorAll('svg.lines-view text')].filter((t) => t.textContent).map((t) => {
    const b = t.getBoundingClientRect();
    return {text: t.textContent, x: b.x, r: b.right, y: b.y, b: b.bottom};
  })"""


def test_a_query_draws_a_line_per_key_it_sees_and_hover_or_keys_move_it(
    browser: Browser, tmp_path: Path
) -> None:
    w = np.stack([causal_weights(6, seed) for seed in range(2)])
    m = show_lines(w, [f"Ġ{t}" for t in TOKENS], head=1)
    assert m.kind == "lines" and m.head == 1 and m.tokens == TOKENS
    page, foreign, errors = open_file(browser, m.save_html(tmp_path / "lines.html"))
    lines = page.locator("line.weight-line")
    expect(lines).to_have_count(1)  # query 0 sees only itself
    page.locator("text.query-label", has_text="it").hover()
    expect(lines).to_have_count(5)
    top = int(np.argmax(w[1, 4]))
    assert (
        readout(page, "lines") == f"query 4 · it: most weight on {TOKENS[top]} ({w[1, 4, top]:.3f})"
    )
    widths = [float(x.get_attribute("stroke-width") or 0) for x in lines.all()]
    assert np.allclose(widths, np.maximum(0.4, 9 * w[1, 4, :5]), atol=1e-3)
    boxes = page.evaluate(BOXES)
    for a, b in itertools.combinations(boxes, 2):
        assert a["r"] <= b["x"] or b["r"] <= a["x"] or a["b"] <= b["y"] or b["b"] <= a["y"], (a, b)
    page.locator("text.key-label", has_text="cat").hover()  # the picture turns round
    assert readout(page, "lines").startswith("key 1 · cat: weighed most by")
    expect(page.locator("line.by-key")).to_have_count(5)
    page.locator("svg.lines-view").focus()
    page.keyboard.press("ArrowDown")
    assert readout(page, "lines").startswith("query 5 · ran")
    assert foreign == [] and errors == []
    page.close()


def test_a_long_head_draws_the_tokens_around_the_query_and_says_what_is_outside(
    browser: Browser, tmp_path: Path
) -> None:
    m = show_lines(causal_weights(300), [f"t{i}" for i in range(300)])
    m.row = 200
    page, foreign, errors = open_file(browser, m.save_html(tmp_path / "long.html"))
    assert page.locator("text.query-label").count() == 48
    assert "of it on tokens outside the 48 drawn (176–223)" in readout(page, "lines")
    # within a laptop's screen, however long the head
    box = page.locator("svg.lines-view").bounding_box()
    assert box and box["height"] <= 800, box
    assert foreign == [] and errors == []
    page.close()


def picture_of(html: str) -> str:
    found = re.search(r'src="data:image/png;base64,([^"]+)"', html)
    assert found
    return found.group(1)


def test_overlaid_heads_leave_a_still_of_the_first_naming_them_all() -> None:
    """The still of show_lines(..., heads=[(3, 5), (7, 1), (11, 0)]) drew and named layer 0,
    head 0, a head not on screen."""
    rng = np.random.default_rng(0)
    stack = rng.random((12, 12, 8, 8)) * np.tril(np.ones((8, 8)))
    stack /= stack.sum(axis=-1, keepdims=True)
    tokens = [f"w{i}" for i in range(8)]
    m = show_lines(stack, tokens, heads=[(3, 5), (7, 1), (11, 0)])
    m.row = 6
    html = m._still()
    assert "weights[3, 5], weights[7, 1], weights[11, 0] overlaid" in html
    assert "weights[0, 0]" not in html
    first = show_lines(stack, tokens, layer=3, head=5)
    first.row = 6
    assert picture_of(html) == picture_of(first._still())


def test_lines_overlay_up_to_four_heads_as_they_say() -> None:
    stack = np.full((2, 4, 5, 5), 1 / 5)
    pairs = [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1)]
    with pytest.raises(ValueError, match="up to four heads, not 5"):
        show_lines(stack, list("abcde"), heads=pairs)
    assert show_lines(stack, list("abcde"), heads=pairs[:4])._on_screen() == pairs[:4]
