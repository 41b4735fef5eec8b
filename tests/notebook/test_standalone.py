"""save_html's file, opened from file:// in Chromium: offline, clean, legible, fast enough.

Draw times are printed, not asserted (budgets live in `make bench`): the machine is shared.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
from playwright.sync_api import Browser, Page

from selfattn.notebook import show, show_map

TOKENS = ["the", "cat", "ate", "and", "it", "ran"]


def causal_weights(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    scores = np.where(np.tril(np.ones((n, n), dtype=bool)), rng.normal(size=(n, n)) * 2, -np.inf)
    w = np.exp(scores - scores.max(axis=1, keepdims=True))
    return w / w.sum(axis=1, keepdims=True)


def open_file(browser: Browser, path: Path) -> tuple[Page, list[str], list[str]]:
    """The page, with every request outside file:// and every error it raised."""
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    foreign: list[str] = []
    errors: list[str] = []
    page.on(
        "request", lambda r: r.url.startswith(("file:", "data:", "blob:")) or foreign.append(r.url)
    )
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.goto(path.as_uri())
    page.wait_for_selector(".selfattn-nb[data-draw-ms]")
    return page, foreign, errors


def readout(page: Page, name: str) -> str:
    return page.locator(f'[data-readout="{name}"]').first.inner_text()


def test_a_six_token_map_opens_offline_legible_and_answers_a_click(
    browser: Browser, tmp_path: Path
) -> None:
    path = show_map(causal_weights(6), TOKENS).save_html(tmp_path / "map6.html")
    page, foreign, errors = open_file(browser, path)
    assert foreign == [] and errors == []
    labels = page.locator(".grid-label").all()
    boxes = [label.bounding_box() for label in labels]
    assert [label.text_content() for label in labels] == TOKENS * 2
    assert all(b and b["height"] >= 11 and b["x"] >= 0 and b["y"] >= 0 for b in boxes)
    columns = sorted((b for b in boxes[6:] if b), key=lambda b: b["x"])
    assert all(a["x"] + a["width"] <= b["x"] for a, b in itertools.pairwise(columns))
    assert (
        page.locator(".cell.masked").count() == 15 and page.locator(".checks .failed").count() == 0
    )
    page.locator('g.cell[data-row="it"][data-column="cat"]').click()
    assert readout(page, "row") == "4 · it"
    page.close()


def test_a_512_token_map_draws_on_a_canvas_and_stays_responsive(
    browser: Browser, tmp_path: Path
) -> None:
    path = show_map(causal_weights(512), [f"token{i}" for i in range(512)]).save_html(
        tmp_path / "map512.html"
    )
    page, foreign, errors = open_file(browser, path)
    assert foreign == [] and errors == []
    drawn = float(page.locator(".selfattn-nb").get_attribute("data-draw-ms") or "nan")
    canvas = page.locator("canvas")
    box = canvas.bounding_box()
    assert box and box["width"] > 300
    # a pixel in the masked triangle and one on the diagonal are painted differently
    inked = page.evaluate(
        """() => {
          const c = document.querySelector('#selfattn-widget').shadowRoot.querySelector('canvas');
          const pixels = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
          return [...pixels].filter((v, i) => i % 4 === 0 && v < 128).length;
        }"""
    )
    assert inked > 500
    page.mouse.move(box["x"] + box["width"] * 0.6, box["y"] + box["height"] * 0.8)
    page.locator('[data-readout="hover"]').filter(has_text="→").wait_for()
    page.mouse.click(box["x"] + box["width"] * 0.6, box["y"] + box["height"] * 0.8)
    row = int(readout(page, "row").split(" ")[0])
    assert 300 < row < 511
    page.keyboard.press("ArrowDown")
    assert readout(page, "row").startswith(f"{row + 1} ")
    print(f"\n512-token map drawn in {drawn:.0f} ms (file://, shared machine)")
    page.close()


def test_a_broken_head_in_a_stack_is_marked_and_named(browser: Browser, tmp_path: Path) -> None:
    stack = np.stack([np.stack([causal_weights(6, seed) for seed in range(3)])] * 2)  # (2, 3, 6, 6)
    stack[1, 2, 1, 4] = 0.2  # the future leaks in layer 1, head 2
    widget = show_map(stack, TOKENS, causal=True)
    assert widget.failed == []
    widget.layer, widget.head = 1, 2
    assert widget.failed == ["rows sum to 1", "causal"]
    widget.layer, widget.head = 0, 0
    page, foreign, errors = open_file(browser, widget.save_html(tmp_path / "stack.html"))
    assert page.locator(".checks .failed").count() == 0
    page.get_by_label("next layer").click()
    page.get_by_label("next head").click()
    page.get_by_label("next head").click()
    assert readout(page, "layer") == "1 / 2" and readout(page, "head") == "2 / 3"
    assert page.locator(".checks .failed").count() == 2
    assert page.locator('g.cell.leak[data-row="cat"][data-column="it"]').count() == 1
    assert page.locator(".row-sum.wrong").count() == 1
    assert foreign == [] and errors == []
    page.close()


def test_the_head_view_projects_and_says_so(browser: Browser, tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    q, k, v = (rng.normal(size=(6, 8)) for _ in range(3))
    widget = show(q, k, v, tokens=TOKENS, mask="causal")
    page, foreign, errors = open_file(browser, widget.save_html(tmp_path / "head.html"))
    assert foreign == [] and errors == []
    assert "keeping" in readout(page, "qk-projection") and "(d = 8)" in readout(
        page, "qk-projection"
    )
    page.locator("button.token", has_text="it").click()
    assert readout(page, "row").startswith("query 4: it")
    page.close()
