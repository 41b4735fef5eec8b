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
when offline. Each drawing has `--limit` seconds, checked between polls: a page whose renderer
is busy answers a poll late, so a time past the limit is still when it drew; "> limit" is a
page that had not drawn by then.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from statistics import median
from typing import Any

from playwright.sync_api import Browser, sync_playwright

from selfattn.notebook import show_map
from tests.harness import CHROMIUM, FLAGS

CDN = "https://cdnjs.cloudflare.com/ajax/libs"
# what each tool has drawn when its first picture is on screen
DRAWN = {
    "selfattn": "() => !!document.querySelector('#selfattn-widget')?.shadowRoot"
    "?.querySelector('.selfattn-nb[data-draw-ms]')",
    "bertviz": "() => document.querySelectorAll('svg line, svg rect').length > 0",
    "circuitsvis": "() => document.querySelectorAll('canvas, svg, table td').length > 0",
}


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
    out = {"selfattn map": show_map(attentions, tokens, batch=0).save_html(folder / f"s{n}.html")}
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
# callback runs once it is laid out and painted), in ms from navigation start, with none of
# the harness's polling (a round trip to the browser every 20 ms) in it
WATCH = """(() => { const drawn = %s; const tick = () => {
  try { if (drawn()) return setTimeout(() => { window.__drawnAt = performance.now(); }); }
  catch (e) {}
  requestAnimationFrame(tick); }; requestAnimationFrame(tick); })()"""


def first_drawing(
    browser: Browser, tool: str, path: Path, limit: float, shot: Path | None = None
) -> tuple[float, float] | None:
    """Seconds from navigation to the tool's first drawing, as the harness sees it and as the
    page's own clock has it, or None past the limit."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    check = DRAWN[tool.split()[0]]
    page.add_init_script(WATCH % check)
    start = time.perf_counter()
    page.goto(path.as_uri(), wait_until="commit")
    try:
        while not page.evaluate("() => window.__drawnAt !== undefined"):
            if time.perf_counter() - start > limit:
                return None
            time.sleep(0.02)
        page.evaluate("() => new Promise((r) => requestAnimationFrame(() => setTimeout(r)))")
        took = time.perf_counter() - start
        if shot:  # to look at: the first drawing is the tool's picture, not a spinner
            page.screenshot(path=shot / f"{path.stem}.png")
        return took, page.evaluate("() => window.__drawnAt") / 1000
    except Exception:  # a page that hangs its renderer can refuse evaluate
        return None
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
    rows: dict[str, dict[int, tuple[float, float] | None]] = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        for n in args.sizes:
            for tool, path in pages(n, folder, shim).items():
                if args.only and not any(word in tool for word in args.only):
                    continue
                runs = [
                    first_drawing(browser, tool, path, args.limit, args.shots)
                    for _ in range(args.repeat)
                ]
                rows.setdefault(tool, {})[n] = (
                    None
                    if None in runs
                    else (median(r[0] for r in runs if r), median(r[1] for r in runs if r))
                )
                print(f"{tool} {n}: {rows[tool][n]}", flush=True)
        browser.close()
    print(
        "\nfirst drawing from file://, seconds: the page's own clock / the harness's "
        f"(4 layers × 4 heads; > {args.limit:.0f} = not drawn by then)"
    )
    print(f"{'tool':<34}" + "".join(f"{n:>17}" for n in args.sizes))
    for tool, times in rows.items():
        cells = "".join(
            f"{'> ' + str(int(args.limit)) if t is None else f'{t[1]:.2f} / {t[0]:.2f}':>17}"
            for t in times.values()
        )
        print(f"{tool:<34}{cells}")


if __name__ == "__main__":
    main()
