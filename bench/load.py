"""Loading on a slow phone: time to the first working figure under throttled profiles.

Each profile throttles the network (per-request latency standing for one round trip, and
bandwidth) and the CPU through the Chrome DevTools Protocol. The article's Chinese page
is loaded with a fresh cache at phone size and timed from navigation start: until the
first figure is drawn and answering (its module ran, its controls exist, and a frame has
been painted since), and until every figure is. Long tasks are counted until then, and
the longest animation frame (rendering included) is kept.

The figure of merit is the ratio to a blank page of the same size loaded the same way:
the page's title (so that both set up the same fonts), its HTML bytes (as inert text), its
stylesheet, and one module carrying the
bytes of every script the page had fetched by the time its first figure was ready (as
comments), which then makes one slider work. That is the best any arrangement of those
bytes can do (the HTML, then one round of subresources), so a ratio of 1 means the
module graph, the figures' start-up and laying out the article's text cost nothing beyond
their bytes.

The text is no script's doing, so a second reference takes it apart from the rest: the
page itself, prose, maths and stylesheet as served, with its modules swapped for that one
module of comments, which makes the first figure a slider. Page over prose is what the
module graph and the figures' start-up cost; prose over blank is what the first layout of
the article's text costs, which no arrangement of the scripts can take back.

`python -m bench.load` runs this part of `make bench` alone.
"""

from __future__ import annotations

import re
import statistics
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import Browser, ViewportSize, sync_playwright

from selfattn.site.serve import make_server
from tests.harness import CHROMIUM, FLAGS


@dataclass(frozen=True)
class Profile:
    name: str
    rtt: float = 0  # ms added to every request before its response starts
    down: float = -1  # bytes per second, -1 for unthrottled
    up: float = -1
    cpu: float = 1  # slowdown factor of the page's main thread


KBIT = 1000 / 8  # bytes per second in one kbit/s

# Fast 3G as Lighthouse defines it (its "Slow 4G" today): 150 ms, 1.6 Mbit/s down, 750 kbit/s
# up. DevTools throttles per request, not per packet, so the latency here is one round trip.
PROFILES = (
    Profile("unthrottled"),
    Profile("150 ms RTT", rtt=150),
    Profile("300 ms RTT", rtt=300),
    Profile("Fast 3G, 4x CPU", rtt=150, down=1600 * KBIT, up=750 * KBIT, cpu=4),
    Profile("6x CPU", cpu=6),
)
RUNS = 5  # per profile and page; the table shows medians
PHONE: ViewportSize = {"width": 360, "height": 740}
LIMIT_MS = 30_000  # give up waiting for every figure after this long

# Records when each figure becomes ready (a MutationObserver callback runs right after the
# script that drew it, so after main.js has attached its tools) and when the next frame
# showing it has been painted, plus every long task and every long animation frame. A frame
# that only renders is not a long task to the browser (the article's first layout, 160-360 ms
# of blocking at 4x CPU, is none), so the longest frame is reported beside them.
PROBE = """
window.__load = { ready: {}, painted: {}, long: [], frames: [] };
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) window.__load.long.push([e.startTime, e.duration]);
}).observe({ type: "longtask", buffered: true });
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) window.__load.frames.push([e.startTime, e.duration]);
}).observe({ type: "long-animation-frame", buffered: true });
new MutationObserver(() => {
  for (const el of document.querySelectorAll("figure[data-module]")) {
    if (!el.figure || el.id in window.__load.ready) continue;
    window.__load.ready[el.id] = performance.now();
    requestAnimationFrame(() => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => { window.__load.painted[el.id] = performance.now(); };
      channel.port2.postMessage(0);
    });
  }
}).observe(document, { childList: true, subtree: true });
"""

DONE = """() => {
  const figures = document.querySelectorAll("figure[data-module]").length;
  const painted = Object.values(window.__load.painted);
  return figures > 0 && painted.length === figures;
}"""

RESULT = """() => {
  const painted = Object.values(window.__load.painted);
  const first = Math.min(...painted);
  const all = Math.max(...painted);
  const scripts = performance.getEntriesByType("resource")
    .filter((e) => e.responseEnd <= first)
    .map((e) => new URL(e.name).pathname)
    .filter((path) => path.endsWith(".js"));
  const long = window.__load.long.filter(([start]) => start < all).map(([, d]) => d);
  const frames = window.__load.frames.filter(([start]) => start < all).map(([, d]) => d);
  return { first, all, long, frames, scripts };
}"""

BLANK_MODULE = """
const el = document.getElementById("blank");
const input = Object.assign(document.createElement("input"), { type: "range" });
input.setAttribute("aria-label", "blank");
el.figure = { state: {} };
el.append(input);
"""

# the first figure becomes a slider in its stage, as a drawn figure fills its stage; the others
# count as ready where they are, still the empty placeholders they are on the page by then
PROSE_MODULE = """
const [first, ...rest] = document.querySelectorAll("figure[data-module]");
const input = Object.assign(document.createElement("input"), { type: "range" });
input.setAttribute("aria-label", "prose");
(first.querySelector(".stage") ?? first).append(input);
for (const el of [first, ...rest]) el.figure = { state: {} };
"""

MODULE_TAG = re.compile(r'<script type="module" src="[^"]*"></script>')


def comments_module(site: Path, name: str, scripts: list[str], body: str) -> str:
    """Write a module `name` carrying the bytes of `scripts` as comments, then `body`."""
    comment = "".join(
        f"// {line}\n"
        for path in scripts
        for line in (site / path.lstrip("/")).read_text("utf-8").splitlines()
    )
    (site / name).write_text(comment + body, "utf-8")
    return name


def blank_page(site: Path, page: str, scripts: list[str]) -> str:
    """Write a blank page as heavy as `page`'s first screen (see the module docstring);
    return its path in the site."""
    text = (site / page).read_text("utf-8")
    title = re.search(r"<h1>(.*?)</h1>", text, re.S)
    lang = re.search(r'<html lang="([^"]+)"', text)
    # the page's stylesheet, applied here the same way: inside the page (taken out of the inert
    # copy, so the bytes are not counted twice), or linked (an older build, in an A/B)
    inline = re.search(r"<style>.*?</style>", text, re.S)
    linked = re.search(r'<link rel="stylesheet" href="\.{0,2}/?(static/[^"]+)">', text)
    if inline:
        style = inline.group(0)
        text = text.replace(style, "", 1)
    else:
        style = f'<link rel="stylesheet" href="{linked.group(1)}">' if linked else ""
    text = text.replace("</", "<\\/")
    comments_module(site, "blank-load.js", scripts, BLANK_MODULE)
    (site / "blank-load.html").write_text(
        f'<!doctype html><html lang="{lang.group(1) if lang else "en"}"><head>'
        '<meta charset="utf-8"><title>blank</title>\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n' + f"{style}\n"
        '<script type="module" src="blank-load.js"></script></head>\n'
        f"<body><h1>{title.group(1) if title else 'blank'}</h1>\n"
        '<figure id="blank" data-module="blank"></figure>\n'
        f'<script type="text/plain">{text}</script></body></html>\n',
        "utf-8",
    )
    return "blank-load.html"


def prose_page(site: Path, page: str, scripts: list[str]) -> str:
    """Write `page` as served with its modules swapped for one module of comments that makes
    the first figure a slider (see the module docstring); return its path in the site."""
    text = (site / page).read_text("utf-8")
    tags = MODULE_TAG.findall(text)
    if not tags:
        raise ValueError(f"{page}: no module script to swap")
    # beside the page, so that its relative addresses (./static/...) still resolve
    name = str(Path(page).with_name("prose-load.html"))
    module = comments_module(
        site, str(Path(page).with_name("prose-load.js")), scripts, PROSE_MODULE
    )
    text = text.replace(tags[0], f'<script type="module" src="./{Path(module).name}"></script>', 1)
    for tag in tags[1:]:
        text = text.replace(tag, "", 1)
    (site / name).write_text(text, "utf-8")
    return name


def load_once(browser: Browser, url: str, profile: Profile) -> dict:
    """One cold load under a profile: first and all figures painted (ms), long tasks."""
    context = browser.new_context(viewport=PHONE)
    context.add_init_script(PROBE)
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send(
        "Network.emulateNetworkConditions",
        {
            "offline": False,
            "latency": profile.rtt,
            "downloadThroughput": profile.down,
            "uploadThroughput": profile.up,
        },
    )
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": profile.cpu})
    page.goto(url, wait_until="commit")
    waited = 0
    while not page.evaluate(DONE):
        if waited > LIMIT_MS:
            raise TimeoutError(f"{url}: figures not all ready within {LIMIT_MS} ms")
        page.wait_for_timeout(100)
        waited += 100
    page.wait_for_timeout(300)  # a long task is reported once it has ended
    result = page.evaluate(RESULT)
    context.close()
    return result


def measure_load(base: str, site: Path, page: str = "index.html") -> list:
    """Per profile, every run of the page and of its two references (see the module
    docstring), interleaved so that all three see the same noise from the machine."""
    url = base + page.removesuffix("index.html")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        reference = load_once(browser, url, PROFILES[0])
        others = {
            "blank": base + blank_page(site, page, reference["scripts"]),
            "prose": base + prose_page(site, page, reference["scripts"]),
        }
        rows = []
        for profile in PROFILES:
            runs = {"page": [], **{which: [] for which in others}}
            for _ in range(RUNS):
                runs["page"].append(load_once(browser, url, profile))
                for which, other in others.items():
                    runs[which].append(load_once(browser, other, profile))
            rows.append((profile, runs))
        browser.close()
    return rows


def worst(runs: dict, key: str) -> list[float]:
    """The median over runs of the longest task (`key` "long") or frame ("frames"), for the
    page and then for the blank."""
    return [
        statistics.median(max(r[key], default=0) for r in runs[which])
        for which in ("page", "blank")
    ]


def paired(runs: dict, which: str) -> str:
    """First / first of each page load and the `which` load after it: median, then range."""
    ratios = [p["first"] / r["first"] for p, r in zip(runs["page"], runs[which], strict=True)]
    return f"{statistics.median(ratios):>5.2f}x {min(ratios):>4.2f}-{max(ratios):.2f}"


def report_load(rows: list, page: str = "index.html") -> None:
    print(
        f"\n## loading on a slow phone ({page}, {PHONE['width']}x{PHONE['height']}, cold cache, "
        f"median of {RUNS})\n"
    )
    print("first: the first figure drawn and answering; blank: a page of the same bytes in one")
    print("round of subresources; RTTs: time / round trip; long: tasks > 50 ms until all ready,")
    print("and the longest (the page's, then the blank's: what its bytes alone cost); frame: the")
    print("longest animation frame until all ready, rendering included (the page's, the blank's);")
    print("ratio: first / blank of each page load and the blank load after it, the median and the")
    print("range over the runs: paired, the machine's slow drifts cancel; prose: the page with its")
    print("modules swapped for one module of comments, and first / prose paired the same way: what")
    print("the scripts cost beyond their bytes, the text's first layout set aside\n")
    header = ("profile", "first", "RTTs", "blank", "RTTs", "ratio", "range", "prose", "ratio")
    header += ("range", "all", "RTTs", "long", "max", "blank", "frame", "blank")
    widths = (-16, 7, 5, 7, 5, 6, 10, 7, 6, 10, 7, 5, 5, 5, 6, 6, 6)  # negative: left-aligned
    cells = zip(header, widths, strict=True)
    print(" ".join(f"{h:<{-w}}" if w < 0 else f"{h:>{w}}" for h, w in cells))
    for profile, runs in rows:
        first, blank, prose, every = (
            statistics.median(r[key] for r in runs[which])
            for which, key in (
                ("page", "first"),
                ("blank", "first"),
                ("prose", "first"),
                ("page", "all"),
            )
        )
        long = statistics.median(len(r["long"]) for r in runs["page"])
        longest, blank_longest = worst(runs, "long")
        frame, blank_frame = worst(runs, "frames")

        def trips(ms: float, rtt: float = profile.rtt) -> str:
            return f"{ms / rtt:.1f}" if rtt else "-"

        print(
            f"{profile.name:<16} {first:>5.0f}ms {trips(first):>5} {blank:>5.0f}ms "
            f"{trips(blank):>5} {paired(runs, 'blank')} {prose:>5.0f}ms {paired(runs, 'prose')} "
            f"{every:>5.0f}ms {trips(every):>5} "
            f"{long:>5.0f} {longest:>3.0f}ms {blank_longest:>4.0f}ms {frame:>4.0f}ms "
            f"{blank_frame:>4.0f}ms"
        )


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        server = make_server("127.0.0.1", 0, site, watch=False)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            rows = measure_load(f"http://127.0.0.1:{server.server_port}/", site)
        finally:
            server.shutdown()
            server.server_close()
    report_load(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
