"""selfattn beside BertViz and CircuitsVis on the same tensors: a tiny GPT-2 built from a config
(4 layers × 4 heads, random weights, nothing downloaded), each tool's page opened from file://
in headless Chromium and timed from navigation to its first drawing. A benchmark, not a test:
it prints. The other tools are never installed in the project's venv: run this with a scratch
venv's Python that has them (and sees torch), e.g.

    python -m venv /tmp/others && /tmp/others/bin/pip install transformers bertviz circuitsvis
    PYTHONPATH=$PWD /tmp/others/bin/python -m bench.others --d3 DIR --requirejs FILE

BertViz loads require.js, d3 and jQuery from cdnjs; offline, `--d3` (the folder holding
d3.min.js from the npm package d3@5.7.0), `--requirejs` (require.js from requirejs@2.3.6) and
`--jquery` stand in for the CDN, as a browser cache would. CircuitsVis inlines its bundle
when offline. Each tool is timed the same way: from the navigation asked for to the end of
the first frame that shows its drawing, which the page itself notes and reports on its
console (WATCH), on the page's own clock and on the wall clock (page start-up included); the
harness never polls. Each drawing has `--limit` seconds; "> limit" is a page that had not
drawn by then.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from statistics import median
from typing import Any

from playwright.sync_api import Browser, Page, sync_playwright
from playwright.sync_api import Error as PlaywrightError

from selfattn.notebook import show_map
from tests.harness import CHROMIUM, FLAGS

CDN = "https://cdnjs.cloudflare.com/ajax/libs"
# what each tool has drawn when its first picture is on screen
DRAWN = {
    "selfattn": "() => !!document.querySelector('#selfattn-widget')?.shadowRoot"
    "?.querySelector('.selfattn-nb[data-draw-ms]')",
    "bertviz": "() => document.querySelectorAll('svg line, svg rect').length > 0",
    "circuitsvis": "() => document.querySelectorAll('canvas, svg, table td').length > 0",
    # a page with one word on it: what any tool pays before drawing anything (the browser
    # starting the page, its first frame), the floor under every ratio below
    "blank": "() => !!document.body?.textContent",
    "bare": "() => document.body?.dataset.drawn === '1'",
}
BLANK = "<!doctype html><meta charset=utf-8><title>blank</title><body><p>attention</p>"
# the least a drawn view of one head can be: the weights as JSON and a script that squares
# them on a canvas with a label a row, nothing else (no model, no styles, no read-outs), the
# floor under any tool that draws the map in the browser
BARE = """<!doctype html><meta charset=utf-8><title>bare</title><body><canvas></canvas><script>
const w = %s, tokens = %s, n = tokens.length, cell = Math.max(2, Math.floor(560 / n));
const canvas = document.querySelector("canvas"), left = 80;
canvas.width = left + n * cell; canvas.height = left + n * cell;
const ctx = canvas.getContext("2d"), squares = new Path2D();
for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
  const s = Math.sqrt(w[i][j]) * cell;
  squares.rect(left + j * cell + (cell - s) / 2, left + i * cell + (cell - s) / 2, s, s);
}
ctx.fill(squares); ctx.font = "11px sans-serif"; ctx.textAlign = "right";
const every = Math.ceil(12 / cell);
for (let i = 0; i < n; i += every) ctx.fillText(tokens[i], left - 4, left + (i + 0.7) * cell);
document.body.dataset.drawn = "1";
</script>"""


def gpt2(n: int) -> tuple[Any, list[str]]:
    """A tiny random GPT-2's attentions on n ids, and byte-level tokens for them."""
    import torch
    from transformers import GPT2Config, GPT2Model  # pyright: ignore[reportMissingImports]

    torch.manual_seed(0)
    config = GPT2Config(n_layer=4, n_head=4, n_embd=64, n_positions=1024, vocab_size=512)
    config._attn_implementation = "eager"  # the attention weights, as output_attentions asks
    model = GPT2Model(config).eval()
    ids = torch.randint(0, 512, (1, n))
    with torch.no_grad():
        attentions = model(ids, output_attentions=True).attentions
    words = ["the", "cat", "ate", "and", "it", "ran", "because", "was", "hungry", "."]
    return attentions, [("Ġ" if i % 3 else "") + words[i % len(words)] for i in range(n)]


def pages(n: int, folder: Path, shim: dict[str, str]) -> dict[str, Path]:
    """Each tool's page for the same tensors."""
    import circuitsvis as cv  # pyright: ignore[reportMissingImports]
    from bertviz import head_view, model_view  # pyright: ignore[reportMissingImports]

    attentions, tokens = gpt2(n)
    (folder / "blank.html").write_text(BLANK)
    head = attentions[0][0, 0].tolist()  # layer 1, head 1, as every tool opens on
    (folder / f"bare{n}.html").write_text(BARE % (json.dumps(head), json.dumps(tokens)))
    out = {
        "blank page": folder / "blank.html",
        "bare canvas": folder / f"bare{n}.html",
        "selfattn map": show_map(attentions, tokens, batch=0).save_html(folder / f"s{n}.html"),
    }
    for name, html in {
        "bertviz head_view": head_view(attentions, tokens, html_action="return").data,
        "bertviz model_view": model_view(attentions, tokens, html_action="return").data,
    }.items():
        for url, local in shim.items():
            html = html.replace(url, local)
        out[name] = folder / f"{name.replace(' ', '-')}{n}.html"
        out[name].write_text(f"<!doctype html><meta charset=utf-8><body>{html}</body>")
    layer = attentions[0][0]  # (heads, n, n): CircuitsVis draws one layer
    for name, render in {
        "circuitsvis attention_patterns": cv.attention.attention_patterns,
        "circuitsvis attention_heads": cv.attention.attention_heads,
    }.items():
        html = render(tokens=tokens, attention=layer).local_src
        out[name] = folder / f"{name.replace(' ', '-')}{n}.html"
        out[name].write_text(f"<!doctype html><meta charset=utf-8><body>{html}</body>")
    return out


# checked in the page itself at every animation frame from the start of the navigation:
# the end of the first frame that holds the drawing (a task queued from that frame's
# callback runs once it is laid out and painted). The page says so on its console, with its
# own clock (performance.now(), 0 at navigation start) and the system's (Date.now()): the
# harness never asks the page anything while it loads, so neither tool pays for polling
# (a round trip to a busy renderer every 20 ms, and Playwright's injected script)
WATCH = """(() => { const drawn = %s; const tick = () => {
  try { if (drawn()) return setTimeout(() => { window.__drawnAt = performance.now();
    console.log(`selfattn-bench-drawn ${window.__drawnAt} ${Date.now()}`); }); }
  catch (e) {}
  requestAnimationFrame(tick); }; requestAnimationFrame(tick); })()"""
SIGNAL = "selfattn-bench-drawn"


def drawn_at(page: Page, url: str, check: str, limit: float) -> tuple[float, float] | None:
    """Open `url` in `page` (its init scripts set, nothing else loaded in it yet) and wait,
    without polling, for the first frame where `check` holds: seconds from the navigation
    asked for to that frame on the wall clock (the page's system clock against the
    harness's, page start-up included), and on the page's own clock; None past `limit`."""
    page.add_init_script(WATCH % check)
    start = time.time()
    try:
        with page.expect_console_message(
            lambda message: message.text.startswith(SIGNAL), timeout=limit * 1000
        ) as said:
            page.goto(url, wait_until="commit")
    except PlaywrightError:  # past the limit, or a renderer that hung
        return None
    page_ms, system_ms = (float(word) for word in said.value.text.split()[1:])
    return system_ms / 1000 - start, page_ms / 1000


def first_drawing(
    browser: Browser, tool: str, path: Path, limit: float, shot: Path | None = None
) -> tuple[float, float] | None:
    """Seconds from navigation to the tool's first drawing, on the wall clock and on the
    page's own, or None past the limit."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        took = drawn_at(page, path.as_uri(), DRAWN[tool.split()[0]], limit)
        if took and shot:  # to look at: the first drawing is the tool's picture, not a spinner
            page.screenshot(path=shot / f"{path.stem}.png")
        return took
    finally:
        page.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--d3", type=Path, help="folder with d3.min.js (npm d3@5.7.0)")
    parser.add_argument("--requirejs", type=Path, help="require.js (npm requirejs@2.3.6)")
    parser.add_argument(
        "--jquery", type=Path, default=Path("/usr/share/javascript/jquery/jquery.min.js")
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[64, 256, 512])
    parser.add_argument("--limit", type=float, default=60.0)
    parser.add_argument("--shots", type=Path, help="a folder for a screenshot of each drawing")
    parser.add_argument("--repeat", type=int, default=1, help="runs per cell; the median is kept")
    parser.add_argument("--only", nargs="+", help="time only the tools whose name has one of these")
    args = parser.parse_args()
    shim = {}
    if args.d3 and args.requirejs:
        shim = {
            f"{CDN}/require.js/2.3.6/require.min.js": args.requirejs.resolve().as_uri(),
            f"{CDN}/d3/5.7.0/d3.min": (args.d3.resolve() / "d3.min").as_uri(),
            f"{CDN}/jquery/2.0.0/jquery.min": args.jquery.resolve().with_suffix("").as_uri(),
        }
    folder = Path(tempfile.mkdtemp(prefix="selfattn-others-"))
    runs: dict[str, dict[int, list[tuple[float, float] | None]]] = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        for n in args.sizes:
            made = {
                tool: path
                for tool, path in pages(n, folder, shim).items()
                if not args.only or any(word in tool for word in args.only)
            }
            # the tools take turns, run by run, so a machine that grows busier or quieter
            # meanwhile weighs on each alike
            for _ in range(args.repeat):
                for tool, path in made.items():
                    took = first_drawing(browser, tool, path, args.limit, args.shots)
                    runs.setdefault(tool, {}).setdefault(n, []).append(took)
            for tool in made:
                print(f"{tool} {n}: {runs[tool][n]}", flush=True)
        browser.close()
    print(table(runs, args.sizes, args.limit))


def cell(times: list[tuple[float, float] | None], clock: int, limit: float) -> str:
    """A tool's runs on one clock: the median and the range, or "> limit"."""
    if not times or None in times:
        return f"> {limit:.0f}"
    values = sorted(t[clock] for t in times if t)
    return f"{median(values):.2f} ({values[0]:.2f}–{values[-1]:.2f})"


def table(runs: dict[str, dict[int, list]], sizes: list[int], limit: float) -> str:
    """Each tool's first drawing on both clocks, and how many times selfattn's map it takes."""
    ours = runs.get("selfattn map", {})
    lines = [
        "\nfirst drawing from file://, seconds from navigation: median (range) of "
        f"{max((len(r) for t in runs.values() for r in t.values()), default=0)} runs; "
        "4 layers × 4 heads",
        f"{'tool':<32}{'n':>5}{'page clock':>22}{'wall clock':>22}{'× ours (page / wall)':>24}",
    ]
    for tool, times in runs.items():
        for n in sizes:
            if n not in times:
                continue
            ratio = ""
            if (
                tool not in ("selfattn map", "blank page", "bare canvas")
                and ours.get(n)
                and None not in ours[n] + times[n]
            ):
                page, wall = (
                    median(t[k] for t in times[n] if t) / median(t[k] for t in ours[n] if t)
                    for k in (1, 0)
                )
                ratio = f"{page:.1f} / {wall:.1f}"
            lines.append(
                f"{tool:<32}{n:>5}{cell(times[n], 1, limit):>22}{cell(times[n], 0, limit):>22}"
                f"{ratio:>24}"
            )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
