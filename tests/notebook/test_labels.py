"""Token labels stay legible at any length: at 20 tokens and at 200, from a saved file in
Chromium, no two labels overlap, and the tokenizer's markers are read back into text."""

from __future__ import annotations

import itertools
from pathlib import Path

from playwright.sync_api import Browser

from selfattn.notebook import show_map
from tests.notebook.test_standalone import causal_weights, open_file

WORDS = ["Ġinternationalization", "Ġcat", "Ġate", "Ċ", "Ġthe", "Ġextraordinarily"]

# every label the canvas paints, with the box it covers on screen
RECORD = """
window.__labels = [];
const clear = CanvasRenderingContext2D.prototype.clearRect;
CanvasRenderingContext2D.prototype.clearRect = function (...args) {
  window.__labels = [];  // a new drawing: only the last one is on screen
  return clear.apply(this, args);
};
const fill = CanvasRenderingContext2D.prototype.fillText;
CanvasRenderingContext2D.prototype.fillText = function (text, x, y) {
  const width = this.measureText(text).width, m = this.getTransform();
  const dx = this.textAlign === 'right' ? -width : this.textAlign === 'center' ? -width / 2 : 0;
  const corners = [[x + dx, y - 5], [x + dx + width, y + 5]]
    .map(([a, b]) => m.transformPoint({x: a, y: b}));
  const scale = this.canvas.width / this.canvas.getBoundingClientRect().width;
  const xs = corners.map((p) => p.x / scale), ys = corners.map((p) => p.y / scale);
  window.__labels.push(
    {text, x: Math.min(...xs), r: Math.max(...xs), y: Math.min(...ys), b: Math.max(...ys)});
  return fill.call(this, text, x, y);
};
"""

SVG_LABELS = """() => {
  const root = document.querySelector('#selfattn-widget').shadowRoot;
  return [...root.querySelectorAll('svg.grid text')].filter((t) => t.textContent).map((t) => {
    const b = t.getBoundingClientRect();
    return {text: t.textContent, x: b.x, r: b.right, y: b.y, b: b.bottom};
  });
}"""


def overlaps(boxes: list[dict], slack: float = 0.5) -> list[tuple[str, str]]:
    """Pairs of labels whose boxes share more than `slack` pixels each way."""
    return [
        (a["text"], b["text"])
        for a, b in itertools.combinations(boxes, 2)
        if min(a["r"], b["r"]) - max(a["x"], b["x"]) > slack
        and min(a["b"], b["b"]) - max(a["y"], b["y"]) > slack
    ]


def test_twenty_long_tokens_stand_on_end_and_never_meet(browser: Browser, tmp_path: Path) -> None:
    raw = [WORDS[i % len(WORDS)] for i in range(20)]
    widget = show_map(causal_weights(20), raw)
    assert widget.tokens[:4] == ["internationalization", "cat", "ate", "↵"]
    page, foreign, errors = open_file(browser, widget.save_html(tmp_path / "twenty.html"))
    boxes = page.evaluate(SVG_LABELS)
    labels = [
        b for b in boxes if b["text"] in {"internati…", "cat", "ate", "↵", "the", "extraordi…"}
    ]
    assert len(labels) >= 40 and "internati…" in [b["text"] for b in labels]
    assert overlaps(boxes) == []
    edge = page.locator("svg.grid").bounding_box()
    assert edge and all(b["y"] >= edge["y"] - 1 and b["x"] >= edge["x"] - 1 for b in boxes)
    page.locator("svg.grid .grid-label:not(.row)").first.hover()
    tip = page.locator('[data-readout="tip"]')
    assert tip.inner_text() == 'internationalization ("Ġinternationalization")'
    page.locator('g.cell[data-row="cat"]').first.hover()
    assert '"Ġcat"' in tip.inner_text()
    assert foreign == [] and errors == []
    page.close()


def test_two_hundred_tokens_thin_their_labels_to_what_fits(
    browser: Browser, tmp_path: Path
) -> None:
    raw = [f"{WORDS[i % len(WORDS)]}{i}" for i in range(200)]
    path = show_map(causal_weights(200), raw).save_html(tmp_path / "long.html")
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    page.add_init_script(RECORD)
    page.goto(path.as_uri())
    page.wait_for_selector(".selfattn-nb[data-draw-ms]")
    boxes = page.evaluate("window.__labels")
    short = ("cat", "ate", "the")  # tokens whose labels are never elided
    assert 40 <= len(boxes) <= 400 and any(b["text"].startswith(short) for b in boxes)
    assert not any("Ġ" in b["text"] for b in boxes)
    assert overlaps(boxes) == []
    # the canvas's labels elide and thin out: hovering one shows its whole raw token
    tip = page.locator('[data-readout="tip"]')
    edge = page.locator("canvas").bounding_box()  # the boxes are in the canvas's own pixels
    assert edge
    at = lambda b, x: (edge["x"] + x, edge["y"] + (b["y"] + b["b"]) / 2)  # noqa: E731
    standing = [b for b in boxes if b["b"] - b["y"] > b["r"] - b["x"] and b["text"].endswith("…")]
    label = standing[len(standing) // 2]  # an elided key label, stood on end
    page.mouse.move(*at(label, (label["x"] + label["r"]) / 2))
    whole, raw = tip.inner_text().split(" ", 1)
    assert whole.startswith(label["text"][:-1]) and len(whole) > len(label["text"])
    assert raw == f'("Ġ{whole}")'
    row = next(
        b for b in boxes if b["text"].startswith(short) and b["r"] - b["x"] > b["b"] - b["y"]
    )
    page.mouse.move(*at(row, row["x"] + 2))  # a query's label, lying down
    assert tip.inner_text() == f'{row["text"]} ("Ġ{row["text"]}")'
    page.mouse.move(1, 1)
    assert not tip.is_visible()
    page.close()
