"""A real JupyterLab: a Python-side change redraws the map, a click reaches Python, a long map
zooms, a real-sized head reads in light and dark, and a saved notebook shows its map reopened.

Slow (a server, a kernel, a browser), so `make test` skips it; `make test-notebook` runs it.
The server is started on a random loopback port and stopped by its PID.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from tests.notebook.home import free_port, jupyter_home, notebook_of, run_cell, serving
from tests.notebook.test_stills import SETUP
from tests.notebook.test_stills import VIEWS as STILL_VIEWS

if not os.environ.get("SELFATTN_LIVE_NOTEBOOK"):
    pytest.skip("a live JupyterLab: run `make test-notebook`", allow_module_level=True)
pytest.importorskip("jupyterlab")
nbclient = pytest.importorskip("nbclient")
nbformat = pytest.importorskip("nbformat")

SHOTS = Path(os.environ.get("SELFATTN_SHOTS", "build/notebook-shots"))

# causal softmax weights of random scores, as a cell defines them
CAUSAL = (
    "def causal(n, seed):\n"
    "    normal = np.random.default_rng(seed).normal(size=(n, n)) * 2\n"
    "    scores = np.where(np.tril(np.ones((n, n), bool)), normal, -np.inf)\n"
    "    w = np.exp(scores - scores.max(1, keepdims=True)); return w / w.sum(1, keepdims=True)\n"
)

CELLS = [
    "import numpy as np\nfrom selfattn.notebook import show, show_map\n"
    "tokens = ['the', 'cat', 'ate', 'and', 'it', 'ran']\n"
    + CAUSAL
    + "stack = np.stack([[causal(6, 3 * l + h) for h in range(3)] for l in range(2)])\n"
    "stack[1, 2, 1, 4] = 0.2  # layer 2, head 3 leaks the future\n"
    "m = show_map(stack, tokens, causal=True, title='live map')\nm",
    "m.row = 3",
    "print('row', m.row)",
]

# what a newcomer meets first on a real model: a long map, a head whose queries reach 15
MORE = [
    "import numpy as np\nfrom selfattn.notebook import show, show_map\n"
    "normal = np.random.default_rng(0).normal(size=(300, 300)) * 2\n"
    "scores = np.where(np.tril(np.ones((300, 300), bool)), normal, -np.inf)\n"
    "w = np.exp(scores - scores.max(1, keepdims=True)); w /= w.sum(1, keepdims=True)\n"
    "show_map(w, [f'token{i}' for i in range(300)], title='a long map')",
    "rng = np.random.default_rng(5)\n"
    "q, k, v = (rng.normal(size=(14, 64)) * 2.2 for _ in range(3)); q[:, 0] += 8\n"
    "tokens = 'the cat ate and it ran because it was hungry . then it slept'.split()\n"
    "show(q, k, v, tokens=tokens, mask='causal', title='a real-sized head')",
]

# the views a reader reaches for on a real model: every head, one head as lines, two maps
VIEWS = [
    "import numpy as np\nfrom selfattn.notebook import show_compare, show_heads, show_lines\n"
    + CAUSAL
    + "stack = np.stack([[causal(40, 4 * l + h) for h in range(4)] for l in range(3)])\n"
    "tokens = [f'\u0120w{i}' for i in range(40)]\n"
    "h = show_heads(stack, tokens, by='entropy')\nh",
    "show_lines(stack[:, :, :12, :12], tokens[:12], layer=1, head=2)",
    "show_compare(stack[0], stack[1], tokens, names=('layer 1', 'layer 2'))",
    "print('picked', h.layer, h.head)",
]


# each frame until the live widget has drawn, that frame included (its host carries
# .selfattn-host, and a rule then hides the still), whether a still picture took up any room
# on the page (tests/notebook/test_stills.py holds the same steps to the frame, without a lab)
FLASH = """() => {
  window.__selfattnStillSeen = false;
  const drawn = () =>
    [...document.querySelectorAll(".selfattn-host")].some(
      (host) => host.shadowRoot?.querySelector("[data-draw-ms]"),
    );
  const tick = () => {
    for (const still of document.querySelectorAll(".selfattn-still")) {
      if (still.getBoundingClientRect().height > 0) window.__selfattnStillSeen = true;
    }
    if (!drawn()) requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}"""


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("lab")
    with pytest.MonkeyPatch.context() as env:
        for name, value in jupyter_home(root).items():
            env.setenv(name, value)  # the server, its kernels and nbclient below all read them
        yield from serve(root)


def serve(root: Path) -> Iterator[str]:
    """Write the notebooks the tests open, start JupyterLab on them, stop it after."""
    (root / "live.ipynb").write_text(json.dumps(notebook_of(CELLS)))
    (root / "more.ipynb").write_text(json.dumps(notebook_of(MORE)))
    (root / "views.ipynb").write_text(json.dumps(notebook_of(VIEWS)))
    # run and saved by nbclient, as CI or a colleague would: reopened, it must show the map
    ran = nbformat.reads(json.dumps(notebook_of(CELLS[:1])), as_version=4)
    nbclient.NotebookClient(ran, timeout=120, kernel_name="python3").execute()
    nbformat.write(ran, root / "reopened.ipynb")
    # every view, run by nbclient and reopened untrusted: a still for each, no object repr
    every = nbformat.reads(json.dumps(notebook_of([SETUP, *STILL_VIEWS.values()])), as_version=4)
    nbclient.NotebookClient(every, timeout=120, kernel_name="python3").execute()
    nbformat.write(every, root / "every-view.ipynb")
    del every.metadata["widgets"]  # and saved with no state, signed: no view can draw
    nbformat.sign.NotebookNotary().sign(every)
    nbformat.write(every, root / "every-view-stateless.ipynb")
    notary = nbformat.sign.NotebookNotary()
    notary.sign(ran)  # as JupyterLab signs a notebook the reader saves
    nbformat.write(ran, root / "trusted.ipynb")
    del ran.metadata["widgets"]
    notary.sign(ran)
    nbformat.write(ran, root / "stateless.ipynb")
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        f"--port={port}",
        "--ip=127.0.0.1",
        "--IdentityProvider.token=",
        "--ServerApp.password=",
        f"--ServerApp.root_dir={root}",
        "--ServerApp.disable_check_xsrf=True",
        "--allow-root",
    ]
    with serving(command, port, "api/status", cwd=root) as url:
        yield url


def test_python_and_the_browser_talk_both_ways(lab: str, browser: Browser) -> None:
    start = time.monotonic()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    page.goto(lab + "lab/tree/live.ipynb", timeout=120_000)
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)
    page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=120_000)
    page.evaluate(FLASH)  # from the run to the live map, frame by frame: is the still seen?
    run_cell(page, 0)
    try:
        page.wait_for_selector(".selfattn-nb[data-draw-ms]", timeout=120_000)
    finally:
        page.screenshot(path=str(SHOTS / "jupyterlab-first.png"))
    page.wait_for_timeout(300)
    # the still picture never flashed before the live map drew over it
    assert page.evaluate("window.__selfattnStillSeen") is False
    row = page.locator('.selfattn-nb [data-readout="row"]')
    assert row.inner_text() == "0 · the"
    still = page.locator(".selfattn-still")
    assert still.count() == 1 and not still.is_visible()  # the live widget hides it
    run_cell(page, 1)  # Python sets the row: the map redraws
    row.filter(has_text="3 · and").wait_for(timeout=60_000)
    widget = page.locator(".selfattn-nb")
    # it opened on the head that breaks an invariant, numbered as Python numbers it
    assert widget.locator('[data-readout="layer"]').inner_text() == "1 of 0–1"
    widget.get_by_label("previous head").click()
    widget.locator('[data-readout="head"]').filter(has_text="1 of 0–2").wait_for(timeout=60_000)
    widget.get_by_role("button", name="layer 1 · head 2: rows sum to 1, causal").click()
    widget.locator('[data-readout="head"]').filter(has_text="2 of 0–2").wait_for(timeout=60_000)
    page.locator('g.cell[data-row="ate"][data-column="cat"]').hover()
    assert "ate → cat: " in widget.locator('[data-readout="tip"]').inner_text()
    page.locator('g.cell[data-row="it"][data-column="cat"]').click()  # the reader clicks
    row.filter(has_text="4 · it").wait_for()
    run_cell(page, 2)
    page.locator(".jp-OutputArea-output", has_text="row 4").wait_for(timeout=60_000)
    page.locator(".selfattn-nb").screenshot(path=str(SHOTS / "jupyterlab-light.png"))
    page.mouse.move(0, 0)
    page.get_by_role("menuitem", name="Settings").click()
    page.get_by_text("Theme", exact=True).hover()
    page.get_by_text("JupyterLab Dark", exact=True).click()
    try:
        page.wait_for_selector(".selfattn-nb[data-theme='dark']", timeout=60_000)
    finally:
        page.screenshot(path=str(SHOTS / "jupyterlab-dark-switch.png"))
    page.wait_for_timeout(500)
    page.locator('g.cell[data-row="ate"][data-column="cat"]').hover()
    page.locator(".selfattn-nb").screenshot(path=str(SHOTS / "jupyterlab-dark.png"))
    page.screenshot(path=str(SHOTS / "jupyterlab-dark-page.png"))
    page.close()
    print(f"\nJupyterLab round trip in {time.monotonic() - start:.1f} s")


def test_a_long_map_zooms_and_a_real_head_reads_in_light_and_dark(
    lab: str, browser: Browser
) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 1400})
    page.goto(lab + "lab/tree/more.ipynb?reset", timeout=120_000)
    page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=120_000)
    run_cell(page, 0)
    page.keyboard.press("Shift+Enter")  # the next cell: JupyterLab draws only cells in view
    page.wait_for_selector(".selfattn-nb.qk[data-draw-ms]", timeout=120_000)
    canvas = page.locator(".selfattn-nb canvas")
    box = canvas.bounding_box()
    assert box
    x, y = box["x"] + box["width"] * 0.5, box["y"] + box["height"] * 0.75
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 70, y + 50, steps=4)
    page.mouse.up()
    assert "zoomed to queries" in (canvas.get_attribute("aria-label") or "")
    for theme in ("light", "dark"):
        page.mouse.move(0, 0)
        page.get_by_role("menuitem", name="Settings").click()
        page.get_by_text("Theme", exact=True).hover()
        page.get_by_text(f"JupyterLab {theme.title()}", exact=True).click()
        page.wait_for_selector(f".selfattn-nb[data-theme='{theme}']", timeout=60_000)
        page.wait_for_timeout(500)
        page.mouse.move(x + 30, y + 20)
        for i, name in enumerate(["long-map-zoomed", "real-head"]):
            shot = SHOTS / f"jupyterlab-{name}-{theme}.png"
            page.locator(".selfattn-nb").nth(i).screenshot(path=str(shot))
    page.close()


@pytest.mark.parametrize(
    ("name", "state"),
    [
        ("reopened", True),  # as nbclient saved it, widget state and all
        ("trusted", True),  # the same, signed as JupyterLab signs a notebook the reader saves
        ("stateless", False),  # saved with no state: "Error displaying widget" beside it
    ],
)
def test_a_notebook_saved_after_a_run_shows_the_map_when_reopened(
    lab: str, browser: Browser, name: str, state: bool
) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    page.goto(lab + f"lab/tree/{name}.ipynb?reset", timeout=120_000)
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)
    try:  # no cell is run: what shows is what the notebook saved
        page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=120_000)
        if not state:  # the still shows as the widget fails, not 5 s on (picture.py FAILED)
            page.get_by_text("Error displaying widget").wait_for(timeout=120_000)
            page.wait_for_timeout(500)
        else:
            page.wait_for_timeout(3000)  # the widget manager has had its say
    finally:
        page.screenshot(path=str(SHOTS / f"jupyterlab-reopened-{name}.png"))
    widget = page.locator(".selfattn-nb[data-draw-ms]")
    still = page.locator(".selfattn-still")
    # the live widget, drawn from the saved state, or else the still picture: one, never none
    assert widget.count() == (1 if state else 0) or still.is_visible()
    assert still.is_visible() != (widget.count() == 1)
    if still.is_visible():
        # the head that breaks an invariant, which the map opens on, and how it was read
        said = still.inner_text()
        assert "weights[1, 2] (read as (layers, heads," in said and "causal: 1 weight" in said
    assert "Loading widget" not in page.locator(".jp-Cell").first.inner_text()
    page.close()


@pytest.mark.parametrize("name", ["every-view", "every-view-stateless"])
def test_every_view_run_by_nbclient_reopens_as_its_still_picture(
    lab: str, browser: Browser, name: str
) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    page.goto(lab + f"lab/tree/{name}.ipynb?reset", timeout=120_000)
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)
    page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=120_000)
    page.wait_for_timeout(3000)
    cells = page.locator(".jp-Notebook .jp-Cell")
    try:
        for k, view in enumerate(STILL_VIEWS, start=1):
            cells.nth(k).scroll_into_view_if_needed()
            still = cells.nth(k).locator(".selfattn-still")
            if name.endswith("stateless"):  # the still as the widget fails, not 5 s on
                cells.nth(k).get_by_text("Error displaying widget").wait_for(timeout=60_000)
                page.wait_for_timeout(500)
            # the still, once, or the live view drawn from the saved state: never a repr
            drawn = cells.nth(k).locator(".selfattn-nb[data-draw-ms]").count()
            assert drawn or (still.count() == 1 and still.is_visible()), view
            assert "object at 0x" not in cells.nth(k).inner_text(), view
            cells.nth(k).screenshot(path=str(SHOTS / f"jupyterlab-{name}-{view}.png"))
    finally:
        page.screenshot(path=str(SHOTS / f"jupyterlab-reopened-{name}.png"))
    page.close()


def test_the_heads_lines_and_compare_views_draw_and_a_picked_head_reaches_python(
    lab: str, browser: Browser
) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 1400})
    said: list[str] = []
    page.on("console", lambda m: m.type == "error" and said.append(m.text))
    page.goto(lab + "lab/tree/views.ipynb?reset", timeout=120_000)
    page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=120_000)
    run_cell(page, 0)
    for _ in range(2):  # the lines and the comparison, one after another
        page.keyboard.press("Shift+Enter")
    views = {"heads": ".heads-view", "lines": ".lines", "compare": ".compare"}
    try:  # JupyterLab draws only the cells in view: each is brought into view to draw
        for k, selector in enumerate(views.values()):
            page.locator(".jp-Notebook .jp-Cell").nth(k).scroll_into_view_if_needed()
            page.wait_for_selector(f".selfattn-nb{selector}[data-draw-ms]", timeout=120_000)
    finally:
        page.screenshot(path=str(SHOTS / "jupyterlab-views.png"))
        print("\n".join(said))
    # each live view hides its own still, show_heads's too: none shows, even once the still
    # has waited its 5 s, and it never flashed before the view drew
    page.wait_for_timeout(5500)
    assert page.locator(".selfattn-still").count() == 3
    assert page.locator(".selfattn-still:visible").count() == 0
    page.locator(".jp-Notebook .jp-Cell").first.scroll_into_view_if_needed()
    page.locator(".thumb", has_text="L1 H2").click()
    page.locator('.selfattn-nb [data-readout="head"]').first.filter(has_text="2 of 0–3").wait_for()
    run_cell(page, 3)
    page.locator(".jp-OutputArea-output", has_text="picked 1 2").wait_for(timeout=60_000)
    for theme in ("light", "dark"):
        page.mouse.move(0, 0)
        page.get_by_role("menuitem", name="Settings").click()
        page.get_by_text("Theme", exact=True).hover()
        page.get_by_text(f"JupyterLab {theme.title()}", exact=True).click()
        page.wait_for_selector(f".selfattn-nb[data-theme='{theme}']", timeout=60_000)
        page.wait_for_timeout(500)
        for name, selector in views.items():
            view = page.locator(f".selfattn-nb{selector}").first
            view.scroll_into_view_if_needed()
            view.screenshot(path=str(SHOTS / f"jupyterlab-{name}-{theme}.png"))
    page.close()
