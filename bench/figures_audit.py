"""What each figure puts before a reader's eye, counted: picture width over the column,
labels under 11 and 12 px, read-outs and repeats, labels on marks, the figure's height.

`python -m bench.figures_audit [--width 1280] [--lang en] [--scheme light]` builds the
article, opens one language page in headless Chromium with predictions skipped and
figures at rest, and prints a line per figure and the totals. A measurement, not a test:
the figure-layout rules in the tests read the same numbers.
"""

from __future__ import annotations

import argparse
import tempfile
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright

from selfattn.site.serve import make_server
from tests.harness import AUDIT, CHROMIUM, FLAGS

# labels on marks, measured as the collision test measures them (tests may not import bench/;
# bench may read what the tests measure with)
TEXT_ON_MARKS = (Path(__file__).parent.parent / "tests" / "browser" / "text_on_marks.js").read_text(
    "utf-8"
)
NEXT_FRAME = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"


def audit(url: str, width: int, scheme: str) -> list[dict]:
    """One record per figure, in page order, as tests/browser/figures_audit.js measures it."""
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(
            viewport={"width": width, "height": 844 if width < 600 else 900},  # a phone: 390 × 844
            color_scheme=scheme,  # type: ignore[arg-type]
            reduced_motion="reduce",
        )
        page.goto(url)
        # every figure started, so each prediction is on the page to be skipped: waiting for the
        # first alone left F15's and F19's veils up on a phone, their pictures measured hidden
        started = "[...document.querySelectorAll('figure[data-module]')].every(f => f.figure)"
        while not page.evaluate(started):
            page.wait_for_timeout(20)
        for skip in page.locator(".predict .skip").all():
            skip.click()
        ids = page.evaluate("[...document.querySelectorAll('figure[data-figure]')].map(f => f.id)")
        rows = []
        for figure_id in ids:
            page.evaluate("(id) => document.getElementById(id).scrollIntoView()", figure_id)
            page.evaluate(NEXT_FRAME)
            row = page.evaluate(AUDIT, figure_id)
            row["hits"] = page.evaluate(TEXT_ON_MARKS, figure_id)
            rows.append(row)
        browser.close()
    return rows


def report(rows: list[dict]) -> None:
    heads = ("fig", "width", "<11px", "<12px", "small", "reads", "rep", "hits", "height")
    print(" ".join(f"{h:>6}" for h in heads))
    for r in rows:
        share = r["width"] / r["column"] if r["column"] else 0
        print(
            f"{r['id']:>6} {share:6.2f} {len(r['small11']):6} {len(r['small12']):6} "
            f"{len(r['small']):6} {len(r['readouts']):6} {len(r['repeats']):6} "
            f"{len(r['hits']):6} {r['height']:6.0f}"
            + (f"  {'; '.join(r['hits'][:4])}" if r["hits"] else "")
        )
    total = {
        k: sum(len(r[k]) for r in rows)
        for k in ("small11", "small12", "small", "readouts", "repeats", "hits")
    }
    print(
        f"total: {total}; widest share {max(r['width'] / max(r['column'], 1) for r in rows):.2f}; "
        f"tallest {max(r['height'] for r in rows):.0f} px"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--lang", choices=["zh", "en"], default="en")
    parser.add_argument("--scheme", choices=["light", "dark"], default="light")
    args = parser.parse_args()
    server = make_server("127.0.0.1", 0, Path(tempfile.mkdtemp()))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_port}/" + ("en/" if args.lang == "en" else "")
        report(audit(url, args.width, args.scheme))
    finally:
        server.shutdown()


if __name__ == "__main__":
    main()
