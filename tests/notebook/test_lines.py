"""The lines view: one head as BertViz's head view draws it, moved by hover and by keys."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
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
