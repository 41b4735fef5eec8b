"""The notebook widgets' first drawing, from a saved file in headless Chromium: the map at 64,
256, 512 and 1,024 tokens, and the heads view of 12 layers × 12 heads at 512 tokens (budget < 2 s);
then, in Python, show_map on 12 × 12 heads given as Hugging Face gives them (a tuple of 12
`(1, 12, n, n)` torch tensors) against the same as one array, and the saved file's size.
A benchmark, not a test: it prints. `python -m bench.notebook [runs per view, 5]`."""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from playwright.sync_api import sync_playwright

from bench.others import DRAWN, drawn_at
from selfattn.notebook import show_heads, show_map
from tests.harness import CHROMIUM, FLAGS


def heads(layers: int, count: int, n: int, seed: int = 0) -> np.ndarray:
    """Causal softmax heads of random scores, float32, as a model's would be."""
    rng = np.random.default_rng(seed)
    allowed = np.tril(np.ones((n, n), dtype=bool))
    out = np.empty((layers, count, n, n), dtype=np.float32)
    for layer in range(layers):
        s = rng.normal(size=(count, n, n)).astype(np.float32) * 2
        s = np.where(allowed, s, -np.inf)
        w = np.exp(s - s.max(axis=-1, keepdims=True))
        out[layer] = w / w.sum(axis=-1, keepdims=True)
    return out


def from_tuple(n: int) -> tuple[float, float, float]:
    """Seconds show_map takes on 12 × 12 heads at `n` tokens as one array and as Hugging
    Face's `outputs.attentions` (torch tensors, one per layer), and the MB of its saved file."""
    import torch

    stack = heads(12, 12, n)
    tokens = [f"Ġt{i}" for i in range(n)]
    start = time.perf_counter()
    widget = show_map(stack, tokens)
    as_array = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as folder:
        size = widget.save_html(Path(folder) / "map.html").stat().st_size / 1e6
    del widget
    layers = tuple(torch.from_numpy(layer[None].copy()) for layer in stack)
    del stack
    start = time.perf_counter()
    show_map(layers, tokens, batch=0)
    return as_array, time.perf_counter() - start, size


def drawn(browser, path: Path) -> tuple[float, dict]:
    """Seconds from navigation to the widget drawn on the wall clock, and what the widget and
    the page timed: `drawMs` the widget's own drawing, `pageMs` the end of the first frame
    that shows it on the page's clock (bench.others' drawn_at: no polling)."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    took = drawn_at(page, path.as_uri(), DRAWN["selfattn"], 60.0)
    if took is None:
        raise TimeoutError(f"{path} did not draw within 60 s")
    inner = page.evaluate(
        """() => document.querySelector('#selfattn-widget').shadowRoot
          .querySelector('.selfattn-nb').dataset"""
    )
    page.close()
    return took[0], {**inner, "pageMs": took[1] * 1000}


def steady(browser, path: Path, repeat: int) -> tuple[float, dict]:
    """`drawn` `repeat` times, the run of median wall time: one run on a shared machine is
    noise (the first page of a browser also pays its fonts)."""
    runs = sorted((drawn(browser, path) for _ in range(repeat)), key=lambda run: run[0])
    return runs[len(runs) // 2]


def main() -> None:
    repeat = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    folder = Path(tempfile.mkdtemp(prefix="selfattn-bench-"))
    rows = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        for n in (64, 256, 512, 1024):
            w = heads(1, 1, n)[0, 0]
            start = time.perf_counter()
            path = show_map(w, [f"Ġt{i}" for i in range(n)]).save_html(folder / f"map{n}.html")
            made = time.perf_counter() - start
            wall, inner = steady(browser, path, repeat)
            rows.append((f"map, {n} tokens", made, wall, inner, None))
        stack = heads(12, 12, 512)
        start = time.perf_counter()
        widget = show_heads(stack, [f"Ġt{i}" for i in range(512)])
        made = time.perf_counter() - start
        start = time.perf_counter()
        path = widget.save_html(folder / "heads.html")
        saved = time.perf_counter() - start
        wall, inner = steady(browser, path, repeat)
        rows.append(("heads, 144 × 512", made, wall, inner, float(inner["headsMs"])))
        browser.close()
    print(
        f"{'view':<20}{'python s':>10}{'file→drawn s':>14}{'page clock s':>14}"
        f"{'render ms':>11}{'heads ms':>10}"
    )
    for name, made, wall, inner, small in rows:
        print(
            f"{name:<20}{made:>10.2f}{wall:>14.2f}{inner['pageMs'] / 1000:>14.2f}"
            f"{float(inner['drawMs']):>11.0f}{'' if small is None else f'{small:.0f}':>10}"
        )
    print(f"heads view saved in {saved:.2f} s, {path.stat().st_size / 1e6:.1f} MB")
    for n in (512, 1024):
        as_array, as_tuple, size = from_tuple(n)
        print(
            f"show_map 144 × {n}: one array {as_array:.2f} s, Hugging Face's tuple of "
            f"tensors {as_tuple:.2f} s; saved {size:.1f} MB"
        )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
