"""`make bench`: what the article weighs and how fast it answers, as a table of figures.

Builds the site, serves it, opens each language page in headless Chromium, drives every
figure's controls continuously, and prints bytes per resource (raw and gzip), long
tasks, per-figure input-to-frame times (median and p95) with their ratio to a blank
page's, time to build and time to first response; then loads the page on a slow phone
under throttled profiles (see load.py). A benchmark, not a test: it prints.
"""

from __future__ import annotations

import gzip
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import sync_playwright

from selfattn import leak
from selfattn.site.build import build, loaded_files
from selfattn.site.serve import make_server
from tests.harness import CHROMIUM, FLAGS, first_response_seconds

from .load import measure_load, report_load

# For every input the reader makes: the time from the event to just after the frame
# that shows it is painted, and the work done inside that frame. A bubbling listener
# runs after the figure's own handler, so its animation frame callback comes after
# the figure's batched redraw; a message posted from there arrives after the paint.
PROBE = """
window.__frames = []; window.__long = [];
new PerformanceObserver(list => list.getEntries().forEach(e => window.__long.push(e.duration)))
  .observe({ type: 'longtask', buffered: true });
for (const type of ['input', 'keydown', 'pointermove', 'click']) {
  document.addEventListener(type, event => {
    const id = event.target.closest?.('figure')?.id ?? 'blank';
    const start = event.timeStamp;
    requestAnimationFrame(frame => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => {
        const now = performance.now();
        window.__frames.push([id, now - start, now - frame]);
      };
      channel.port2.postMessage(0);
    });
  });
}
"""

BLANK = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>blank</title></head>
<body><input type="range" min="0" max="100" value="50" aria-label="blank"></body></html>"""


NEXT_FRAME = "() => new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)))"


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def drive(page, figure_id: str | None) -> None:
    """Work every control of a figure (or the blank page's slider) continuously."""
    scope = f"#{figure_id} " if figure_id else ""
    sliders = page.locator(f"{scope}input[type=range]")
    for i in range(sliders.count()):
        sliders.nth(i).focus()
        for key in ["ArrowRight"] * 20 + ["ArrowLeft"] * 20:
            page.keyboard.press(key)
            # a held key repeats about 30 times a second; pressing faster than frames are
            # painted would measure a queue of keys, not the figure
            page.evaluate(NEXT_FRAME)
    handles = page.locator(f"{scope}.handle")
    for i in range(handles.count()):
        handles.nth(i).scroll_into_view_if_needed()
        box = handles.nth(i).bounding_box()
        if not box:
            continue
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        page.mouse.move(x, y)
        page.mouse.down()
        for step in range(40):
            page.mouse.move(x + 3 * (step % 10), y - 3 * (step % 7))
        page.mouse.up()
    clickable = page.locator(
        f"{scope}.stage button, {scope}.stage input[type=radio], {scope}.stage input[type=checkbox]"
    )
    for i in range(clickable.count()):
        control = clickable.nth(i)
        for _ in range(3):  # a step button turns itself off at the last step
            if not (control.is_visible() and control.is_enabled()):
                break
            try:
                control.click(timeout=2000)
            except PlaywrightTimeout:  # a player running on reached the end meanwhile
                break


def weigh(site: Path, page: str) -> list[tuple[str, int, int]]:
    """(resource, raw bytes, gzip bytes) for a page and every static file it loads: what its
    head names, and the chunk of later figures (the modules' own files are never fetched)."""
    files = [site / page, *(site / "static" / name for name in loaded_files(site, page))]
    return [
        (p.relative_to(site).as_posix(), p.stat().st_size, len(gzip.compress(p.read_bytes(), 6)))
        for p in files
    ]


# A figure's own cost, apart from the browser's: its draw plus the style and layout it
# causes, median of 30 (a forced layout after each, so nothing is deferred).
DRAW_COST = """() => Object.fromEntries([...document.querySelectorAll('figure[data-module]')]
  .filter(f => f.figure).map(f => {
    const times = [];
    for (let i = 0; i < 30; i++) {
      const t0 = performance.now();
      f.figure.redraw();
      document.body.getBoundingClientRect();
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    return [f.id, times[15]];
  }))"""


# F27 trains while the reader watches, a step a frame: what one gradient step costs (learn.js,
# median of 20 batches of 100), what a whole run costs (trained when a seed or rate is picked,
# median of 20), and what a frame of training costs: the figure moved one step on and drawn,
# with a forced layout, over a whole run of steps (median, 95th percentile and the worst).
TRAIN_COST = """async () => {
  const m = await import(new URL('../static/js/learn.js', location.href));
  const task = JSON.parse(document.getElementById('selfattn-data').textContent).learn;
  const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const step = [], run = [], frame = [];
  let [WQ, WK] = m.start(task.seed, task.startRange);
  for (let i = 0; i < 20; i++) {  // a step is below the clock's grain: time 100 at once
    const t0 = performance.now();
    for (let j = 0; j < 100; j++) {
      const p = m.forwardBackward(task, WQ, WK);
      [WQ, WK] = [m.descend(WQ, p.dWQ, task.rate), m.descend(WK, p.dWK, task.rate)];
    }
    step.push((performance.now() - t0) / 100);
  }
  for (let i = 0; i < 20; i++) {
    const t0 = performance.now();
    m.train(task, 1 + (i % task.seeds), task.rate, task.steps);
    run.push(performance.now() - t0);
  }
  const f = document.getElementById('F27').figure;
  for (let k = 0; k <= task.steps; k++) {
    const t0 = performance.now();
    f.set({ step: k });
    f.redraw();
    document.body.getBoundingClientRect();
    frame.push(performance.now() - t0);
  }
  f.set({ step: 0 });
  frame.sort((a, b) => a - b);
  return { step: median(step), run: median(run), frame: median(frame),
           p95: frame[Math.floor(0.95 * frame.length)], worst: frame[frame.length - 1] };
}"""


def measure(base: str) -> tuple[dict, dict, dict, dict]:
    """Load and drive each page: frame timings by (page, figure), long tasks by phase,
    each figure's draw cost by (page, figure) and F27's training costs by page."""
    timings: dict[tuple[str, str], list[tuple[float, float]]] = {}
    long_tasks: dict[str, list[float]] = {}
    draw_cost: dict[tuple[str, str], float] = {}
    train_cost: dict[str, dict[str, float]] = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        for label, path in (("zh", ""), ("en", "en/"), ("blank", "blank.html")):
            # a fresh cache each time: every page pays its own first load
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            context.add_init_script(PROBE)
            page = context.new_page()
            page.goto(base + path, wait_until="load")
            page.wait_for_timeout(2500)  # the figures far down start when the page is idle
            loaded = page.evaluate("window.__long.slice()")
            long_tasks[f"{label}, loading"] = loaded
            figures = page.evaluate(
                "[...document.querySelectorAll('figure[data-module]')].map(f => f.id)"
            )
            for figure_id, ms in page.evaluate(DRAW_COST).items():
                draw_cost[(label, figure_id)] = ms
            if figures:
                train_cost[label] = page.evaluate(TRAIN_COST)
            for figure_id in figures or [None]:
                drive(page, figure_id)
            page.wait_for_timeout(200)
            for figure_id, latency, work in page.evaluate("window.__frames"):
                timings.setdefault((label, figure_id), []).append((latency, work))
            long_tasks[f"{label}, driving"] = page.evaluate("window.__long.slice()")[len(loaded) :]
            context.close()
        browser.close()
    return timings, long_tasks, draw_cost, train_cost


def report_training(train_cost: dict[str, dict[str, float]]) -> None:
    print("\n## F27: training a step a frame, ms (a 60 Hz frame is 16.7 ms)\n")
    print(
        "{:<5} {:>9} {:>9} {:>11} {:>6} {:>6}".format("page", "step", "run", "frame", "p95", "max")
    )
    for label, c in train_cost.items():
        print(
            f"{label:<5} {c['step']:>9.4f} {c['run']:>9.2f} {c['frame']:>11.2f} "
            f"{c['p95']:>6.2f} {c['worst']:>6.2f}"
        )
    print("step: one gradient step; run: every step of a seed; frame: a step drawn and laid out")


def report(rows, long_tasks, timings, draw_cost, build_seconds: float, first: float) -> None:
    print("\n## bytes per resource (zh page; the en page differs only in its HTML)\n")
    print(f"{'resource':<44} {'raw':>9} {'gzip':>9}")
    for name, raw, packed in rows["zh"]:
        print(f"{name:<44} {raw:>9,} {packed:>9,}")
    for label in ("zh", "en"):
        raw = sum(r[1] for r in rows[label])
        packed = sum(r[2] for r in rows[label])
        total = f"TOTAL {label} ({packed / 1024:.1f} KiB gzip, budget 120)"
        print(f"{total:<44} {raw:>9,} {packed:>9,}")

    print("\n## long tasks (> 50 ms)\n")
    for phase, durations in long_tasks.items():
        listed = ", ".join(f"{d:.0f} ms" for d in durations)
        print(f"{phase:<18} {len(durations)}  {listed}")

    blank = timings.get(("blank", "blank"), [(1.0, 1.0)])
    blank_latency = statistics.median(b[0] for b in blank)
    blank_work = statistics.median(b[1] for b in blank)
    print("\n## input to painted frame, ms (a 60 Hz frame is 16.7 ms)")
    print(
        f"blank page: latency median {blank_latency:.1f}, work in frame median {blank_work:.1f}\n"
    )
    header = ("page", "figure", "events", "latency", "p95", "work", "p95", "work/blank", "draw")
    print("{:<5} {:<7} {:>6} {:>8} {:>6} {:>6} {:>6} {:>10} {:>6}".format(*header))
    for (label, figure_id), values in sorted(timings.items()):
        if label == "blank" or figure_id == "blank":
            continue
        latency = [v[0] for v in values]
        work = [v[1] for v in values]
        print(
            f"{label:<5} {figure_id:<7} {len(values):>6} {statistics.median(latency):>8.1f} "
            f"{percentile(latency, 95):>6.1f} {statistics.median(work):>6.1f} "
            f"{percentile(work, 95):>6.1f} {statistics.median(work) / blank_work:>10.2f} "
            f"{draw_cost.get((label, figure_id), float('nan')):>6.2f}"
        )

    print("\n## build and serve\n")
    print(f"build (in process)        {build_seconds:.2f} s   (budget 2 s)")
    runs = leak.measured()  # trained by that build; cached
    print(
        f"  of which training F19   {runs.seconds:.2f} s   ({runs.correct.steps[-1]} steps "
        f"twice; train loss {runs.correct.train_loss[-1]:.2f} vs {runs.leaky.train_loss[-1]:.2f}, "
        f"held out {runs.correct.held_out:.2f} vs {runs.leaky.held_out:.2f})"
    )
    print(f"serve, first response     {first:.2f} s   (budget 2 s)")


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        start = time.monotonic()
        build(site)
        build_seconds = time.monotonic() - start
        rows = {"zh": weigh(site, "index.html"), "en": weigh(site, "en/index.html")}
        server = make_server("127.0.0.1", 0, site, watch=False)
        (site / "blank.html").write_text(BLANK)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            base = f"http://127.0.0.1:{server.server_port}/"
            timings, long_tasks, draw_cost, train_cost = measure(base)
            loading = measure_load(base, site)
        finally:
            server.shutdown()
            server.server_close()
    report(rows, long_tasks, timings, draw_cost, build_seconds, first_response_seconds())
    report_training(train_cost)
    report_load(loading)
    return 0


if __name__ == "__main__":
    sys.exit(main())
