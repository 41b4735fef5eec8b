"""`make bench`: what the article weighs and how fast it answers, as a table of figures.

Builds the site, serves it, opens each language page in headless Chromium, drives every
figure's controls continuously at 1× and at 4× CPU (CDP's throttling, a mid-range phone),
a blank page with one slider driven the same way at both, and prints bytes per resource
(raw and gzip), per-figure input-to-frame times (p50 and p95) and long tasks (count and
the longest) at each rate, F27's training (Train pressed: fps, wall time, long tasks) at
each rate, time to build and time to first response; then loads the page on a slow phone
under throttled profiles (see load.py). A benchmark, not a test: it prints.

`python -m bench.bench --figures gradient-finds-cat [--pages en]` drives only the figures
named (and skips the load part): a figure's numbers in a couple of minutes.
"""

from __future__ import annotations

import argparse
import gzip
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from selfattn import leak
from selfattn.site.build import build, loaded_files
from selfattn.site.serve import make_server
from tests.harness import CHROMIUM, FLAGS, first_response_seconds

from .load import measure_load, report_load

# For every input the reader makes: the time from the event to just after the frame
# that shows it is painted, and the work done inside that frame. A bubbling listener
# runs after the figure's own handler, so its animation frame callback comes after
# the figure's batched redraw; a message posted from there arrives after the paint.
# Long tasks keep their start, so each is charged to the figure being driven then.
PROBE = """
window.__frames = []; window.__long = [];
new PerformanceObserver(list => list.getEntries()
  .forEach(e => window.__long.push([e.startTime, e.duration])))
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
STARTED = "[...document.querySelectorAll('figure[data-module]')].every(f => f.figure)"
# CPU slowdowns (CDP Emulation.setCPUThrottlingRate): a laptop, and a mid-range phone
RATES = (1, 4)
TRAINED = "gradient-finds-cat"  # the figure that trains while the reader watches


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def drive(page, figure_id: str | None) -> None:
    """Work every control of a figure (or the blank page's slider) continuously."""
    scope = f"#{figure_id} " if figure_id else ""
    if figure_id:
        # Scrolled to and settled first: a far section lays itself out when it comes on
        # screen (content-visibility), which is the scroll's cost, not the first input's.
        page.locator(f"#{figure_id}").scroll_into_view_if_needed()
        page.evaluate(NEXT_FRAME)
        page.wait_for_timeout(500)
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
    # Found once, as handles: a locator runs Playwright's selector engine over the whole
    # article on the page's main thread before each click and each check (at 4x, tens of ms
    # a time, landing between an input and its frame), which is the harness's cost, not the
    # figure's.
    clickable = page.locator(
        f"{scope}.stage button, {scope}.stage input[type=radio], {scope}.stage input[type=checkbox]"
    ).element_handles()
    for control in clickable:
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
DRAW_COST = """(ids) => Object.fromEntries(ids.map(id => document.getElementById(id))
  .filter(f => f && f.figure).map(f => {
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


# F27 trains while the reader watches: what one gradient step costs (learn.js, median of 20
# batches of 100), what a whole run costs (trained when a seed or rate is picked, median of
# 20), and what drawing one step costs: the figure moved one step on and drawn, with a
# forced layout, over a whole run of steps (median, 95th percentile and the worst).
TRAIN_COST = """async (slug) => {
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
  const f = document.getElementById(slug).figure;
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

# Train pressed as a reader presses it, from step 0 of the opening run, with the figure on
# the screen: the frames painted until the last step is asked for (fps, the gaps between
# frames), the wall time of the run, and the long tasks meanwhile.
TRAIN_FPS = """async (slug) => {
  const el = document.getElementById(slug), f = el.figure;
  const steps = JSON.parse(document.getElementById('selfattn-data').textContent).learn.steps;
  const frame = () => new Promise((r) => requestAnimationFrame(r));
  el.scrollIntoView({ block: 'center' });
  f.set({ step: 0 });
  for (let i = 0; i < 10; i++) await frame();
  const stamps = [];
  const t0 = performance.now();
  el.querySelector('button[name=play]').click();
  while (f.state.step < steps && performance.now() - t0 < 60000) stamps.push(await frame());
  stamps.push(await frame());  // the frame that draws the last step
  const t1 = performance.now();
  await new Promise((r) => setTimeout(r, 300));  // long tasks are reported a little late
  const gaps = stamps.slice(1).map((t, i) => t - stamps[i]).sort((a, b) => a - b);
  const long = window.__long.filter(([start]) => start >= t0 && start <= t1).map(([, d]) => d);
  return { seconds: (t1 - t0) / 1000, frames: stamps.length,
           fps: (stamps.length - 1) / ((stamps[stamps.length - 1] - stamps[0]) / 1000),
           p95: gaps[Math.floor(0.95 * (gaps.length - 1))], worst: gaps[gaps.length - 1], long };
}"""


@dataclass
class Measured:
    """What the pages did, by CPU rate: input-to-frame (latency, work) by (rate, page,
    figure), long tasks by (rate, page, figure or "loading"), each figure's draw cost by
    (page, figure) at 1×, and F27's training costs and its Train run by (rate, page)."""

    timings: dict[tuple[int, str, str], list[tuple[float, float]]] = field(default_factory=dict)
    long_tasks: dict[tuple[int, str, str], list[float]] = field(default_factory=dict)
    draw_cost: dict[tuple[str, str], float] = field(default_factory=dict)
    train_cost: dict[tuple[int, str], dict[str, float]] = field(default_factory=dict)
    training: dict[tuple[int, str], dict] = field(default_factory=dict)


def open_at(browser: Browser, url: str, rate: int) -> tuple[BrowserContext, Page]:
    """A fresh page (a fresh cache: every page pays its own first load) with its CPU slowed
    `rate` times before it loads, once every figure on it has started."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(PROBE)
    page = context.new_page()
    if rate != 1:
        context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": rate})
    page.goto(url, wait_until="load")
    # polled from here: the page's CSP refuses the string a wait_for_function would eval
    deadline = time.monotonic() + 60 * rate
    while not page.evaluate(STARTED) and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    page.wait_for_timeout(1000 * rate)  # the figures far down start when the page is idle
    return context, page


def measure_page(browser: Browser, url: str, label: str, rate: int, chosen, m: Measured) -> None:
    """Drive every figure of one page (the chosen ones, or the blank page's slider) at one
    CPU rate, and charge each long task to the figure being driven when it started."""
    context, page = open_at(browser, url, rate)
    on_page = page.evaluate("[...document.querySelectorAll('figure[data-module]')].map(f => f.id)")
    figures = [f for f in on_page if chosen is None or f in chosen]
    now = "performance.now()"
    windows = {}
    start = page.evaluate(now)
    if rate == 1:
        for figure_id, ms in page.evaluate(DRAW_COST, figures).items():
            m.draw_cost[(label, figure_id)] = ms
    if TRAINED in figures:
        m.train_cost[(rate, label)] = page.evaluate(TRAIN_COST, TRAINED)
    windows["(probes)"] = (start, page.evaluate(now))
    for figure_id in figures or [None]:
        start = page.evaluate(now)
        drive(page, figure_id)
        page.evaluate(NEXT_FRAME)
        windows[figure_id or "blank"] = (start, page.evaluate(now))
    if TRAINED in figures:
        page.wait_for_timeout(500)  # a Train the drive pressed runs out
        start = page.evaluate(now)
        m.training[(rate, label)] = page.evaluate(TRAIN_FPS, TRAINED)
        windows["(Train)"] = (start, page.evaluate(now))
    page.wait_for_timeout(300)
    for figure_id, latency, work in page.evaluate("window.__frames"):
        m.timings.setdefault((rate, label, figure_id), []).append((latency, work))
    first = min(w[0] for w in windows.values())
    for start, duration in page.evaluate("window.__long"):
        owner = "loading" if start < first else None
        owner = owner or next((f for f, (a, b) in windows.items() if a <= start <= b), "between")
        m.long_tasks.setdefault((rate, label, owner), []).append(duration)
    context.close()


def measure(base: str, chosen: set[str] | None, pages: list[str]) -> Measured:
    """Load and drive each page at each CPU rate, the blank page first at each."""
    m = Measured()
    paths = {"zh": "", "en": "en/"}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        for rate in RATES:
            measure_page(browser, base + "blank.html", "blank", rate, None, m)
            for label in pages:
                measure_page(browser, base + paths[label], label, rate, chosen, m)
        browser.close()
    return m


def report_weight(rows) -> None:
    print("\n## bytes per resource (zh page; the en page differs only in its HTML)\n")
    print(f"{'resource':<44} {'raw':>9} {'gzip':>9}")
    for name, raw, packed in rows["zh"]:
        print(f"{name:<44} {raw:>9,} {packed:>9,}")
    for label in ("zh", "en"):
        raw = sum(r[1] for r in rows[label])
        packed = sum(r[2] for r in rows[label])
        total = f"TOTAL {label} ({packed / 1024:.1f} KiB gzip, budget 120)"
        print(f"{total:<44} {raw:>9,} {packed:>9,}")


def spread(values: list[float]) -> str:
    """p50 and p95 of some times, or dashes where there are none."""
    if not values:
        return f"{'-':>6} {'-':>6}"
    return f"{statistics.median(values):>6.1f} {percentile(values, 95):>6.1f}"


def longs(durations: list[float]) -> str:
    """Long tasks as their count and the longest."""
    return f"{len(durations):>4} {max(durations, default=0):>5.0f}"


def report_frames(m: Measured, pages: list[str]) -> None:
    print("\n## input to painted frame, ms, at each CPU slowdown (a 60 Hz frame is 16.7 ms)\n")
    for rate in RATES:
        blank = [v[0] for v in m.timings.get((rate, "blank", "blank"), [])]
        print(f"blank page at {rate}x: latency p50 p95 {spread(blank)}")
    print("\nlong: tasks over 50 ms while the figure was driven, their count and the longest")
    head = "".join(f" | {f'{r}x p50':>6} {'p95':>6} {'long':>4} {'max':>5}" for r in RATES)
    print(f"\n{'page':<5} {'figure':<22} {'events':>6}{head} | {'draw':>5}")
    figures = sorted({(label, f) for _, label, f in m.timings if label in pages})
    for label, figure_id in figures:
        events = len(m.timings.get((RATES[0], label, figure_id), []))
        cells = "".join(
            f" | {spread([v[0] for v in m.timings.get((r, label, figure_id), [])])} "
            f"{longs(m.long_tasks.get((r, label, figure_id), []))}"
            for r in RATES
        )
        draw = m.draw_cost.get((label, figure_id), float("nan"))
        print(f"{label:<5} {figure_id:<22} {events:>6}{cells} | {draw:>5.2f}")
    print()
    for (rate, label, owner), durations in sorted(m.long_tasks.items()):
        if owner in ("loading", "between", "(probes)", "(Train)"):
            print(f"long tasks, {label} at {rate}x, {owner:<8} {longs(durations)}")


def report_training(m: Measured) -> None:
    print(f"\n## {TRAINED}: Train pressed, the whole run played (a 60 Hz frame is 16.7 ms)\n")
    print(
        f"{'cpu':<4} {'page':<5} {'seconds':>7} {'frames':>6} {'fps':>5} {'gap p95':>7} "
        f"{'max':>5} {'long':>4} {'max':>5}"
    )
    for (rate, label), r in sorted(m.training.items()):
        print(
            f"{rate}x   {label:<5} {r['seconds']:>7.2f} {r['frames']:>6} {r['fps']:>5.1f} "
            f"{r['p95']:>7.1f} {r['worst']:>5.1f} {longs(r['long'])}"
        )
    print(
        "\ncosts, ms: step: one gradient step; run: every step of a seed; "
        "frame: a step drawn and laid out\n"
    )
    print(
        "{:<4} {:<5} {:>9} {:>9} {:>11} {:>6} {:>6}".format(
            "cpu", "page", "step", "run", "frame", "p95", "max"
        )
    )
    for (rate, label), c in sorted(m.train_cost.items()):
        print(
            f"{rate}x   {label:<5} {c['step']:>9.4f} {c['run']:>9.2f} {c['frame']:>11.2f} "
            f"{c['p95']:>6.2f} {c['worst']:>6.2f}"
        )


def report_build(build_seconds: float, first: float) -> None:
    print("\n## build and serve\n")
    print(f"build (in process)        {build_seconds:.2f} s   (budget 2 s)")
    runs = leak.measured()  # trained by that build; cached
    print(
        f"  of which training F19   {runs.seconds:.2f} s   ({runs.correct.steps[-1]} steps "
        f"twice; train loss {runs.correct.train_loss[-1]:.2f} vs {runs.leaky.train_loss[-1]:.2f}, "
        f"held out {runs.correct.held_out:.2f} vs {runs.leaky.held_out:.2f})"
    )
    print(f"serve, first response     {first:.2f} s   (budget 2 s)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--figures",
        nargs="+",
        metavar="SLUG",
        help="drive only these figures (and skip the load part)",
    )
    parser.add_argument("--pages", nargs="+", choices=["zh", "en"], default=["zh", "en"])
    args = parser.parse_args(argv)
    chosen = set(args.figures) if args.figures else None
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
            measured = measure(base, chosen, args.pages)
            loading = None if chosen else measure_load(base, site)
        finally:
            server.shutdown()
            server.server_close()
    report_weight(rows)
    report_frames(measured, args.pages)
    report_training(measured)
    if loading is not None:
        report_build(build_seconds, first_response_seconds())
        report_load(loading)
    return 0


if __name__ == "__main__":
    sys.exit(main())
