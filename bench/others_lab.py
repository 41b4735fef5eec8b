"""selfattn's map beside BertViz's head_view in a live JupyterLab 4, where issue 34 measured
them: the tiny GPT-2 of bench/others.py on the same tensors, each cell timed from the key
that runs it (Ctrl+Enter) to the end of the first frame that shows its drawing, on the
page's clock; the kernel's part (show_map's checks, head_view's HTML) is in it, as a reader
waits for it. A benchmark, not a test: it prints.

The cells take turns, run by run (map 64, head_view 64, map 256, ...), each run again in
place so every drawing appears at the same spot, into a notebook whose outputs were all
cleared first (another tool's drawing left on the page slows every frame); a blank cell
(`print`) is timed the same way, the floor any output pays (the kernel's round trip,
JupyterLab placing the output).
BertViz asks cdnjs for require.js, d3 and jQuery; they are answered from the local files
given (`--d3`, `--requirejs`, `--jquery`) by the browser's request routing, as a browser
cache would. Run it with a scratch venv's Python that has JupyterLab 4, anywidget, bertviz
and transformers (`selfattn[others]`), from the checkout:

    PYTHONPATH=$PWD /tmp/others/bin/python -m bench.others_lab --d3 DIR --requirejs FILE
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from statistics import median

from playwright.sync_api import Page, Route, sync_playwright

from bench.others import CDN
from tests.harness import CHROMIUM, FLAGS
from tests.notebook.home import free_port, jupyter_home, notebook_of, serving

# what each cell draws, looked for inside that cell's output only
DRAWN = {
    "selfattn map": "(out) => [...out.querySelectorAll('div')].some((d) => d.shadowRoot"
    "?.querySelector('.selfattn-nb[data-draw-ms]'))",
    "bertviz head_view": "(out) => out.querySelectorAll('svg line, svg rect').length > 0",
    "blank cell": "(out) => out.textContent.includes('attention')",
}
MAKE = {
    "selfattn map": "show_map(attentions[{n}], tokens[{n}], batch=0)",
    "bertviz head_view": "head_view(attentions[{n}], tokens[{n}])",
    "blank cell": "print('attention')",
}
# set up in the page before the cell runs: the key that runs it starts the clock; each
# animation frame looks at the cell's output for a drawing not there before, and the frame
# that has one ends with a task that says so on the console (the harness never polls)
WATCH = """(index) => { const check = %s;
  const cell = document.querySelectorAll('.jp-Notebook .jp-Cell')[index];
  const old = new Set(cell.querySelectorAll('.jp-OutputArea-output'));
  let start = null;
  const key = (event) => {
    if (event.key === 'Enter' && event.ctrlKey && start === null) start = event.timeStamp; };
  document.addEventListener('keydown', key, true);
  const tick = () => {
    const outs = [...cell.querySelectorAll('.jp-OutputArea-output')].filter((o) => !old.has(o));
    const seen = (o) => { try { return check(o); } catch (e) { return false; } };
    if (start !== null && outs.some(seen)) {
      document.removeEventListener('keydown', key, true);
      return setTimeout(() => console.log(`selfattn-lab-drawn ${performance.now() - start}`));
    }
    requestAnimationFrame(tick); };
  requestAnimationFrame(tick); }"""


def local(files: dict[str, Path]):
    """Answer cdnjs requests from local files, by the file's name, as a browser cache would."""

    def answer(route: Route) -> None:
        name = route.request.url.rsplit("/", 1)[-1]
        found = files.get(name if name.endswith(".js") else f"{name}.js")
        if found is None:
            route.abort()
        else:
            route.fulfill(body=found.read_bytes(), content_type="application/javascript")

    return answer


def clear(page: Page) -> None:
    """Clear every cell's output, and let the page settle: a head_view at 256 tokens left on
    the page makes every later frame of the notebook slower, whichever cell draws in it."""
    page.get_by_role("menuitem", name="Edit").click()
    page.get_by_role("menuitem", name="Clear Outputs of All Cells").click()
    page.wait_for_function("() => !document.querySelector('.jp-OutputArea-output')")
    page.wait_for_timeout(500)


def timed(page: Page, index: int, tool: str, limit: float) -> float | None:
    """Run cell `index` in place, the notebook's other outputs cleared first, and wait for its
    new drawing: seconds, or None past `limit`."""
    clear(page)
    cell = page.locator(".jp-Notebook .jp-Cell").nth(index)
    cell.scroll_into_view_if_needed()
    cell.locator(".jp-InputArea-editor").click()
    page.evaluate(WATCH % DRAWN[tool], index)
    try:
        with page.expect_console_message(
            lambda m: m.text.startswith("selfattn-lab-drawn"), timeout=limit * 1000
        ) as said:
            page.keyboard.press("Control+Enter")
        return float(said.value.text.split()[1]) / 1000
    except Exception:  # past the limit: the cell still runs, or failed
        return None
    finally:
        page.get_by_text("| Idle").first.wait_for(timeout=600_000)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--d3", type=Path, required=True, help="folder with d3.min.js")
    parser.add_argument("--requirejs", type=Path, required=True, help="require.js")
    parser.add_argument(
        "--jquery", type=Path, default=Path("/usr/share/javascript/jquery/jquery.min.js")
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[64, 256])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--limit", type=float, default=120.0)
    args = parser.parse_args()
    files = {
        "require.min.js": args.requirejs,
        "d3.min.js": args.d3 / "d3.min.js",
        "jquery.min.js": args.jquery,
    }
    setup = (
        "from bench.others import gpt2\nfrom selfattn.notebook import show_map\n"
        "from bertviz import head_view\nattentions, tokens = {}, {}\n"
        f"for n in {args.sizes}:\n    attentions[n], tokens[n] = gpt2(n)\n'ready'"
    )
    cells = [(tool, n) for n in args.sizes for tool in MAKE]
    root = Path(tempfile.mkdtemp(prefix="selfattn-lab-"))
    (root / "bench.ipynb").write_text(
        json.dumps(notebook_of([setup] + [MAKE[tool].format(n=n) for tool, n in cells]))
    )
    env = {**os.environ, **jupyter_home(root)}
    port = free_port()
    command = [
        sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}", "--ip=127.0.0.1",
        "--IdentityProvider.token=", "--ServerApp.password=", f"--ServerApp.root_dir={root}",
        "--ServerApp.disable_check_xsrf=True", "--allow-root",
    ]  # fmt: skip
    runs: dict[tuple[str, int], list[float | None]] = {cell: [] for cell in cells}
    with serving(command, port, "api/status", cwd=root, env=env) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.route(f"{CDN}/**", local(files))
        page.goto(url + "lab/tree/bench.ipynb", timeout=120_000)
        page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=120_000)
        page.locator(".jp-Notebook .jp-Cell").first.locator(".jp-InputArea-editor").click()
        page.keyboard.press("Control+Enter")
        page.locator(".jp-OutputArea-output", has_text="ready").wait_for(timeout=600_000)
        # a first run of each cell, not timed: Python's imports and the widget's module loaded
        for k, cell in enumerate(cells, start=1):
            timed(page, k, cell[0], args.limit)
        for _ in range(args.repeat):
            for k, cell in enumerate(cells, start=1):
                runs[cell].append(took := timed(page, k, cell[0], args.limit))
                print(f"{cell[0]} {cell[1]}: {took}", flush=True)
        browser.close()
    print(table(runs, args.sizes, args.limit))


def table(runs: dict[tuple[str, int], list[float | None]], sizes: list[int], limit: float) -> str:
    """Each cell's first drawing, and how many times selfattn's map it takes."""
    count = max(len(r) for r in runs.values())
    lines = [
        f"\nJupyterLab 4, cell run → first frame with its drawing, seconds: median (range) of "
        f"{count} runs; 4 layers × 4 heads",
        f"{'cell':<22}{'n':>5}{'seconds':>24}{'× ours':>10}",
    ]
    for n in sizes:
        ours = [t for t in runs[("selfattn map", n)] if t is not None]
        for tool in MAKE:
            times = runs[(tool, n)]
            done = sorted(t for t in times if t is not None)
            if len(done) < len(times) or not done:
                lines.append(f"{tool:<22}{n:>5}{f'> {limit:.0f}':>24}")
                continue
            ratio = (
                f"{median(done) / median(ours):.1f}" if ours and tool == "bertviz head_view" else ""
            )
            cell = f"{median(done):.2f} ({done[0]:.2f}–{done[-1]:.2f})"
            lines.append(f"{tool:<22}{n:>5}{cell:>24}{ratio:>10}")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
