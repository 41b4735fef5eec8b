"""What a reader trips on in a saved page: the focus band over the row labels, two labels of
the plane crowding each other, a picture beside an empty column at 1280 px."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
from playwright.sync_api import Browser, Page

from selfattn.notebook import show, show_map
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
        assert "→" in said_at(page, b["x"] + 1, middle), step
        assert "→" in said_at(page, b["x"] + b["width"] / 2, b["y"] + 1), step
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
