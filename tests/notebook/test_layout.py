"""What a reader trips on in a saved page: the focus band over the row labels, two labels of
the plane crowding each other, a picture beside an empty column at 1280 px."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
from playwright.sync_api import Browser, Page

from selfattn.notebook import show, show_compare, show_lines, show_map
from tests.notebook.test_standalone import causal_weights, open_file

BAND = "() => document.querySelector('#selfattn-widget').shadowRoot.querySelector('.band')"


def said_at(page: Page, x: float, y: float) -> str:
    """What the map's tip says with the pointer at (x, y): a cell ("a → b: 0.1") or a label."""
    page.mouse.move(x, y)
    page.wait_for_timeout(50)
    tip = page.locator('[data-readout="tip"]')
    return tip.inner_text() if tip.is_visible() else ""


def test_the_focus_band_lies_over_its_rows_cells_never_its_label(
    browser: Browser, tmp_path: Path
) -> None:
    path = show_map(causal_weights(64), [f"w{i}" for i in range(64)]).save_html(tmp_path / "m.html")
    page, foreign, errors = open_file(browser, path)
    canvas = page.locator("canvas")
    for step in ([], ["PageDown", "PageDown", "PageDown"], ["zoom"]):
        if step == ["zoom"]:  # into the first rows, cells many pixels wide
            box = canvas.bounding_box()
            assert box
            page.mouse.move(box["x"] + box["width"] * 0.3, box["y"] + box["height"] * 0.3)
            page.keyboard.down("Control")
            for _ in range(4):
                page.mouse.wheel(0, -100)
            page.keyboard.up("Control")
            assert "zoomed" in (page.locator("canvas").get_attribute("aria-label") or "")
            canvas = page.locator("canvas")
            box = canvas.bounding_box()
            assert box
            page.mouse.click(box["x"] + box["width"] * 0.6, box["y"] + box["height"] * 0.6)
        for key in step if step != ["zoom"] else []:
            canvas.press(key)
        band = page.evaluate_handle(BAND).as_element()
        assert band
        b = band.bounding_box()
        assert b and b["width"] > 0
        middle = b["y"] + b["height"] / 2
        # its left end and its top edge lie on cells; just left of it, the row's label
        assert "→" in said_at(page, b["x"] + 3, middle), step
        assert "→" in said_at(page, b["x"] + b["width"] / 2, b["y"] + 3), step
        assert "→" not in said_at(page, b["x"] - 4, middle), step
        # behind the cells: the canvas is drawn over the band, not under it
        assert page.evaluate(
            """(band) => +getComputedStyle(band.parentElement.querySelector('canvas')).zIndex >
                         (+getComputedStyle(band).zIndex || 0)""",
            band,
        )
    assert foreign == [] and errors == []
    page.close()


PLANE_LABELS = """() => [...document.querySelector('#selfattn-widget').shadowRoot
  .querySelectorAll('svg.plane')].map((svg) => [...svg.querySelectorAll('text')]
    .filter((t) => t.textContent && getComputedStyle(t).display !== 'none')
    .map((t) => { const b = t.getBoundingClientRect();
      return {text: t.textContent, tick: t.classList.contains('tick'),
              x: b.x, y: b.y, r: b.right, b: b.bottom}; }))"""


def test_a_real_heads_names_on_the_plane_stand_apart(browser: Browser, tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    q, k, v = (rng.normal(size=(64, 16)) for _ in range(3))
    tokens = [f"w{i}" for i in range(64)]
    page, foreign, errors = open_file(
        browser, show(q, k, v, tokens=tokens, mask="causal").save_html(tmp_path / "head.html")
    )
    closest = []
    for row in range(0, 64, 3):
        page.locator("button.token").nth(row).click()
        for plane in page.evaluate(PLANE_LABELS):
            for a, b in itertools.combinations(plane, 2):
                gap = max(b["x"] - a["r"], a["x"] - b["r"], b["y"] - a["b"], a["y"] - b["b"])
                # two names a third of an em apart at least, never read as one list; a tick
                # number only off the names
                need = 0 if a["tick"] or b["tick"] else 4
                closest.append((gap - need, row, a["text"], b["text"]))
    assert min(closest)[0] >= 0, sorted(closest)[:5]
    assert foreign == [] and errors == []
    page.close()


def opened(browser: Browser, path: Path, width: int) -> Page:
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.goto(path.as_uri())
    page.wait_for_selector(".selfattn-nb[data-draw-ms]")
    return page


WIDTHS = """(picture) => {
  const root = document.querySelector('#selfattn-widget').shadowRoot;
  const widget = root.querySelector('.selfattn-nb').getBoundingClientRect();
  const shown = root.querySelector(picture);
  const box = shown.getBoundingClientRect();
  const inked = [...root.querySelectorAll('.stage > *, .stage .side > *, svg.lines-view')]
    .map((el) => el.getBoundingClientRect().right);
  // how many CSS px a unit of the picture takes: a canvas's pixels or an SVG's viewBox
  const units = shown.tagName === 'CANVAS'
    ? shown.width / Math.min(window.devicePixelRatio || 1, 2) : shown.viewBox.baseVal.width;
  return {widget: widget.width, left: widget.left, picture: box.width,
          right: Math.max(...inked) - widget.left, scale: box.width / units};
}"""


def test_a_map_and_its_read_outs_take_the_width_and_a_phone_keeps_the_labels_at_size(
    browser: Browser, tmp_path: Path
) -> None:
    maps = {
        "map64": show_map(causal_weights(64), [f"w{i}" for i in range(64)]),
        "map20": show_map(causal_weights(20), [f"w{i}" for i in range(20)]),
        "map8": show_map(causal_weights(8), [f"word{i}" for i in range(8)]),
    }
    # a phone draws a short map as the SVG grid where it fits (8 tokens, without the numbers
    # under the squares), and on the canvas where it cannot (20): whole, nothing scrolled
    on_phone = {"map64": "canvas", "map20": "canvas", "map8": "svg.grid"}
    for name, widget in maps.items():
        path = widget.save_html(tmp_path / f"{name}.html")
        wide = opened(browser, path, 1280)
        at = wide.evaluate(WIDTHS, "canvas" if name == "map64" else "svg.grid")
        # the picture is the larger part, and the read-outs beside it leave no empty column
        assert at["picture"] >= 0.45 * at["widget"] and at["right"] >= 0.85 * at["widget"], at
        wide.close()
        phone = opened(browser, path, 390)
        at = phone.evaluate(WIDTHS, on_phone[name])
        assert at["scale"] >= 0.87, at  # labels of 11 px or more stay that size
        scrolled = phone.evaluate(
            "() => { const p = document.querySelector('#selfattn-widget').shadowRoot"
            ".querySelector('.picture'); return p.scrollWidth - p.clientWidth; }"
        )
        assert scrolled <= 1 and at["picture"] <= at["widget"], (name, scrolled, at)
        phone.close()


def test_the_lines_take_the_width_and_keep_their_words_at_size(
    browser: Browser, tmp_path: Path
) -> None:
    stack = np.stack([causal_weights(12, seed) for seed in range(2)])
    path = show_lines(stack, [f"token{i}" for i in range(12)]).save_html(tmp_path / "l.html")
    for width in (1280, 390):
        page = opened(browser, path, width)
        at = page.evaluate(WIDTHS, "svg.lines-view")
        assert at["picture"] >= 0.9 * at["widget"] and 0.97 <= at["scale"] <= 1.03, (width, at)
        page.close()


def test_the_three_compared_maps_share_a_row_when_they_fit_and_stay_at_size_on_a_phone(
    browser: Browser, tmp_path: Path
) -> None:
    tokens = [f"w{i}" for i in range(64)]
    widget = show_compare(causal_weights(64), causal_weights(64, 1), tokens)
    path = widget.save_html(tmp_path / "c.html")
    for width in (1280, 390):
        page = opened(browser, path, width)
        canvases = page.locator("canvas")
        tops = {round((canvases.nth(k).bounding_box() or {"y": -1})["y"]) for k in range(3)}
        assert width == 390 or len(tops) == 1, tops  # no map alone beside an empty column
        at = page.evaluate(WIDTHS, "canvas")
        assert 0.97 <= at["scale"] <= 1.03, (width, at)  # 11 px labels stay 11 px
        page.close()
