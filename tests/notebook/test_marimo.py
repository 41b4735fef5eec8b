"""A real marimo app: every view draws (the map, the heads, the lines, the comparison and the
plane), a step in the browser reaches Python and comes back as the next head's weights, and
each view follows marimo's own theme: the app is run twice, with marimo's display theme set
to light and to dark in the notebook's header, as a user sets it for `marimo run`.

Slow (a server, a kernel, a browser), so `make test` skips it; `make test-notebook` runs it,
and it skips when marimo is not installed (the `notebook-test` extra has it).
The server is started on a random loopback port and stopped by its PID.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.notebook.home import free_port, serving
from tests.notebook.test_jupyterlab import SHOTS

if not os.environ.get("SELFATTN_LIVE_NOTEBOOK"):
    pytest.skip("a live marimo app: run `make test-notebook`", allow_module_level=True)
pytest.importorskip("marimo")

# one cell per view, each widget its cell's last expression, as a marimo user writes it
APP = """
import marimo

app = marimo.App(width="medium")


@app.cell
def _():
    import numpy as np
    from selfattn.notebook import show, show_compare, show_heads, show_lines, show_map

    def causal(n, seed):
        normal = np.random.default_rng(seed).normal(size=(n, n)) * 2
        scores = np.where(np.tril(np.ones((n, n), bool)), normal, -np.inf)
        w = np.exp(scores - scores.max(1, keepdims=True))
        return w / w.sum(1, keepdims=True)

    stack = np.stack([[causal(40, 4 * l + h) for h in range(4)] for l in range(3)])
    tokens = [f"\\u0120w{i}" for i in range(40)]
    return np, show, show_compare, show_heads, show_lines, show_map, stack, tokens


@app.cell
def _(show_map, stack, tokens):
    show_map(stack, tokens, title="map in marimo")
    return


@app.cell
def _(show_heads, stack, tokens):
    show_heads(stack, tokens)
    return


@app.cell
def _(show_lines, stack, tokens):
    show_lines(stack[:, :, :12, :12], tokens[:12], layer=1, head=2)
    return


@app.cell
def _(show_compare, stack, tokens):
    show_compare(stack[0], stack[1], tokens, names=("layer 1", "layer 2"))
    return


@app.cell
def _(np, show):
    rng = np.random.default_rng(5)
    q, k, v = (rng.normal(size=(8, 16)) for _ in range(3))
    show(q, k, v, tokens="the cat ate and it ran because hungry".split(), mask="causal")
    return


if __name__ == "__main__":
    app.run()
"""

# the notebook's own marimo settings (PEP 723 script metadata), which `marimo run` reads: its
# display theme is what a user picks for the app, and marimo paints the page with it
HEADER = """# /// script
# [tool.marimo.display]
# theme = "%s"
# ///
"""

VIEWS = {"map": ".map", "heads": ".heads-view", "lines": ".lines", "compare": ".compare"}

# each view's paper and ink as the page shows them, and the paper the map's canvas painted:
# luminance 0..255
COLOURS = """(root) => {
  const lum = (colour) => {
    const c = document.createElement("canvas").getContext("2d");
    c.fillStyle = colour; c.fillRect(0, 0, 1, 1);
    const [r, g, b] = c.getImageData(0, 0, 1, 1).data;
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const style = getComputedStyle(root);
  const canvas = root.querySelector(".canvas-grid canvas");
  const painted = canvas && canvas.getContext("2d").getImageData(2, 2, 1, 1).data;
  // what the reader sees there: the canvas over the view's paper (it is clear where no cell is)
  const paper = lum(style.backgroundColor), a = painted ? painted[3] / 255 : 0;
  return { paper, ink: lum(style.color), canvas: painted
    ? a * (0.2126 * painted[0] + 0.7152 * painted[1] + 0.0722 * painted[2]) + (1 - a) * paper
    : null };
}"""


@pytest.fixture(scope="module", params=["light", "dark"])
def app(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str]]:
    """The app's URL, and the theme marimo was told to show it in."""
    root = tmp_path_factory.mktemp(f"marimo-{request.param}")
    (root / "views.py").write_text(HEADER % request.param + APP)
    port = free_port()
    home = {name: str(root / name.lower()) for name in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME")}
    command = [sys.executable, "-m", "marimo", "run", "views.py", "--headless", "--no-token"]
    with serving(
        [*command, "--port", str(port), "--no-check", "--no-sandbox"],
        port,
        "health",
        cwd=root,
        env={**os.environ, **home, "PYTHONPATH": str(Path.cwd())},
    ) as url:
        yield url, request.param


def test_every_view_draws_in_marimo_in_its_theme_and_a_step_reaches_python_and_back(
    app: tuple[str, str], browser: Browser
) -> None:
    url, theme = app
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": 1280, "height": 1400})
    said: list[str] = []
    page.on("console", lambda m: said.extend([m.text] if m.type == "error" else []))
    page.on("pageerror", lambda e: said.append(str(e)))
    page.goto(url, timeout=120_000)
    try:
        for selector in [*VIEWS.values(), ".qk"]:
            view = page.locator(f".selfattn-nb{selector}[data-draw-ms]").first
            view.wait_for(state="attached", timeout=120_000)
            view.scroll_into_view_if_needed()
    finally:
        page.screenshot(path=str(SHOTS / f"marimo-views-{theme}.png"), full_page=True)
    assert page.locator(".selfattn-nb[data-draw-ms]").count() == 6  # the heads view holds a map
    # the map's head stepper: the browser asks, Python sends that head's weights, it redraws
    # (row 5, whose largest weight differs from head to head)
    the_map = page.locator(".selfattn-nb.map").first
    the_map.scroll_into_view_if_needed()
    the_map.locator("canvas").focus()
    for _ in range(5):
        page.keyboard.press("ArrowDown")
    expect(the_map.locator('[data-readout="row"]')).to_have_text("5 · w5")
    before = the_map.locator('[data-readout="top"]').inner_text()
    the_map.get_by_role("button", name="next head").click()
    expect(the_map.locator('[data-readout="head"]')).to_have_text("1 of 0–3")
    expect(the_map.locator('[data-readout="top"]')).not_to_have_text(before, timeout=30_000)
    # a thumbnail picked in the heads view opens that head below it
    heads = page.locator(".selfattn-nb.heads-view").first
    heads.scroll_into_view_if_needed()
    heads.locator(".thumb", has_text="L1 H2").click()
    heads.locator('[data-readout="head"]').filter(has_text="2 of 0–3").wait_for(timeout=30_000)
    # marimo painted its page in the theme it was given (a class on <body>), not by our hand
    assert ("dark" in (page.locator("body").get_attribute("class") or "").split()) == (
        theme == "dark"
    )
    for name, selector in {**VIEWS, "qk": ".qk"}.items():
        view = page.locator(f".selfattn-nb{selector}").first
        view.scroll_into_view_if_needed()
        expect(view).to_have_attribute("data-theme", theme)
        seen = view.evaluate(COLOURS)
        dark = [value < 100 for value in (seen["paper"], 255 - seen["ink"])]
        assert dark == [theme == "dark"] * 2, (name, seen)
        if seen["canvas"] is not None:  # a canvas shows the paper in the theme too
            assert abs(seen["canvas"] - seen["paper"]) < 12, (name, seen)
        view.screenshot(path=str(SHOTS / f"marimo-{name}-{theme}.png"))
    assert said == [], said
    page.close()
