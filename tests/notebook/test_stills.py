"""Every view leaves a still picture of itself in the notebook, right after its widget: what a
notebook executed by nbclient shows when reopened untrusted, on GitHub or in nbviewer. The
widget's own text is empty, so no object repr stands in for the view; the still is the view's
own picture (every head for show_heads, not one head's map). Where the widget draws, its still
takes no room from the moment it is printed, and is hidden in the task that first draws the
widget, however long the widget takes."""

from __future__ import annotations

import base64
import os
import re
from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import Browser

from selfattn.notebook import assets, show_heads
from tests.notebook.home import jupyter_home

nbclient = pytest.importorskip("nbclient")
nbformat = pytest.importorskip("nbformat")
pytest.importorskip("ipykernel")

WIDGET = "application/vnd.jupyter.widget-view+json"

SETUP = (
    "import numpy as np\n"
    "from selfattn.notebook import show, show_compare, show_heads, show_lines, show_map\n"
    "from selfattn.notebook import show_tokens\n"
    "def causal(n, seed):\n"
    "    r = np.random.default_rng(seed).normal(size=(n, n)) * 2\n"
    "    s = np.where(np.tril(np.ones((n, n), bool)), r, -np.inf)\n"
    "    w = np.exp(s - s.max(1, keepdims=True)); return w / w.sum(1, keepdims=True)\n"
    "stack = np.stack([[causal(12, 4 * l + h) for h in range(4)] for l in range(2)])\n"
    "tokens = [f'w{i}' for i in range(12)]\n"
    "q, k, v = (np.random.default_rng(s).normal(size=(12, 8)) for s in range(3))"
)
VIEWS = {
    "map": "show_map(stack, tokens)",
    "heads": "show_heads(stack, tokens)",
    "lines": "show_lines(stack, tokens, layer=1, head=2)",
    "compare": "show_compare(stack[0], stack[1], tokens)",
    "qk": "show(q, k, v, tokens=tokens, mask='causal')",
    "several": "show_map(stack, tokens, heads=[(0, 1), (1, 3)])",
    "tokens": "show_tokens(stack, tokens, row=5)",
}


def png_size(html: str) -> tuple[int, int]:
    data = base64.b64decode(re.search(r"base64,([^\"]+)", html)[1])  # type: ignore[index]
    if data.startswith(b"<svg"):  # the map's still: its PNG inside an SVG with its labels
        data = base64.b64decode(re.search(rb"base64,([^\"]+)", data)[1])  # type: ignore[index]
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def test_every_view_executed_by_nbclient_saves_a_still_and_no_repr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(SETUP)] + [
        nbformat.v4.new_code_cell(code) for code in VIEWS.values()
    ]
    root = str(Path(__file__).parents[2])
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    for name, value in jupyter_home(tmp_path).items():
        monkeypatch.setenv(name, value)
    nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3").execute()
    nbformat.write(notebook, tmp_path / "ran.ipynb")
    saved = nbformat.read(tmp_path / "ran.ipynb", as_version=4)
    for view, cell in zip(VIEWS, saved.cells[1:], strict=True):
        shown = [o for o in cell.outputs if o["output_type"] == "display_data"]
        assert len(shown) == 2, view  # the widget, then its still: one, and only one
        widget, still = (o["data"] for o in shown)
        assert WIDGET in widget and widget["text/plain"] == "", view  # no "<... object at 0x>"
        assert 'class="selfattn-still"' in still["text/html"], view
        assert "object at 0x" not in still["text/plain"], view
        png_size(still["text/html"])
    heads = [o for o in saved.cells[2].outputs if o["output_type"] == "display_data"][1]
    assert "8 heads of 12 tokens" in heads["data"]["text/html"]


def test_the_heads_still_draws_every_head_not_the_first_one() -> None:
    stack = np.full((3, 4, 6, 6), 1 / 6)
    stack[2, 1, 0, 0] = 0.5  # layer 2, head 1: its first row sums to more than 1
    m = show_heads(stack, list("abcdef"))
    html = m._still()
    width, height = png_size(html)
    assert width > height > 0 and round(width / height, 1) == round(4 / 3, 1)  # 3 × 4 small maps
    assert "weights[2, 1] (rows sum to 1)" in html and "12 heads of 6 tokens" in html


# A cell's two outputs as JupyterLab lays them out, the widget's then the still's: the still
# is printed at once, while the widget's view waits for its module, loaded from a blob as
# anywidget loads it. How much room the still takes is read at each step: printed, a few
# frames on, with its wait nearly over (the widget slow to come), in the very task that first
# draws the widget (before any paint), and once its wait is over; then, to show the measure
# sees a still, with the widget's mark taken off.
LAB = '<!doctype html><html><body><div class="jp-OutputArea"></div></body></html>'
STILL_ROOM = """async ({ esm, stand, state, still }) => {
  const area = document.querySelector(".jp-OutputArea");
  const output = (html) => {
    const child = document.createElement("div");
    child.className = "jp-OutputArea-child";
    const out = document.createElement("div");
    out.className = "jp-OutputArea-output";
    out.innerHTML = html; // as JupyterLab renders a trusted notebook's HTML
    child.append(out);
    area.append(child);
    return out;
  };
  const el = output("");
  const figure = output(still).querySelector(".selfattn-still");
  const room = () => figure.getBoundingClientRect().height;
  const waits = () => document.getAnimations().filter((a) => a.animationName === "selfattn-wait");
  const frame = () => new Promise(requestAnimationFrame);
  const seen = { printed: room() };
  await frame();
  await frame();
  seen.frames = room();
  const load = (code) => import(URL.createObjectURL(new Blob([code], { type: "text/javascript" })));
  const { default: widget } = await load(esm);
  const { selfattn_entry } = await load(stand); // a saved page's stand-in for the kernel's model
  const model = await selfattn_entry.standaloneModel(state);
  for (const wait of waits()) wait.currentTime = 4900;
  seen.late = room();
  widget.render({ model, el });
  seen.drawn = room();
  seen.drawMs = el.shadowRoot?.querySelector(".selfattn-nb")?.dataset.drawMs ?? null;
  for (const wait of waits()) wait.finish();
  await frame();
  seen.after = room();
  // the room it takes where no widget hides it: shown again, its wait starts over, so ended
  el.classList.remove("selfattn-host");
  room();
  for (const wait of waits()) wait.finish();
  seen.unhidden = room();
  return seen;
}"""


@pytest.mark.parametrize("view", list(VIEWS))
def test_the_still_never_shows_where_the_widget_draws(browser: Browser, view: str) -> None:
    space: dict = {}
    exec(SETUP, space)
    m = eval(VIEWS[view], space)
    state = {
        name: base64.b64encode(value).decode("ascii") if isinstance(value, bytes) else value
        for name, value in {**m._state(), "css": assets.css()}.items()
    }
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    page.set_content(LAB)
    stand = assets.page_code(m.kind) + "\nexport { selfattn_entry };"
    given = {"esm": assets.esm(), "stand": stand, "state": state, "still": m._still()}
    seen = page.evaluate(STILL_ROOM, given)
    page.close()
    assert seen["drawMs"] is not None, view  # the widget drew in the task render ran in
    rooms = {step: seen[step] for step in ("printed", "frames", "late", "drawn", "after")}
    assert rooms == dict.fromkeys(rooms, 0), (view, rooms)
    assert seen["unhidden"] > 20, view  # what the measure sees of a still no widget hides


# the widget's output as JupyterLab's widget renderer leaves it: failed (a notebook saved
# without widget state: the model is not found), or still loading its view
FAILED = ("jp-OutputArea-output jupyter-widgets", "Error displaying widget: model not found")
LOADING = ("jp-OutputArea-output", "Loading widget...")
STILL_AFTER = """({ widget, still }) => {
  const area = document.querySelector(".jp-OutputArea");
  for (const [cls, html] of [widget, ["jp-OutputArea-output", still]]) {
    const child = document.createElement("div");
    child.className = "jp-OutputArea-child";
    const out = document.createElement("div");
    out.className = cls;
    out.innerHTML = html;
    child.append(out);
    area.append(child);
  }
  return document.querySelector(".selfattn-still").getBoundingClientRect().height;
}"""


@pytest.mark.parametrize("view", list(VIEWS))
def test_the_still_shows_at_once_where_jupyterlab_cannot_draw_the_widget(
    browser: Browser, view: str
) -> None:
    space: dict = {}
    exec(SETUP, space)
    still = eval(VIEWS[view], space)._still()
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    rooms = {}
    for name, widget in (("failed", FAILED), ("loading", LOADING)):
        page.set_content(LAB)
        rooms[name] = page.evaluate(STILL_AFTER, {"widget": widget, "still": still})
    page.close()
    # no live view is on its way after a failure: the still, not 5 s of the error alone
    assert rooms["failed"] > 20, (view, rooms)
    assert rooms["loading"] == 0, (view, rooms)  # the live view may come: the still waits
