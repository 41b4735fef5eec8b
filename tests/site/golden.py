"""Refresh the builder's golden pages after an intended change: `make golden`.

The golden copy is of a small sample site (tests/site/sample: one of each directive,
one formula, and a head of its own), so that editing the article's prose or refitting
its head leaves it alone; only a change in what the builder writes shows up.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from selfattn.head import load_head
from selfattn.site.build import build

SAMPLE = Path(__file__).parent / "sample"
GOLDEN = Path(__file__).parent / "golden"
PAGES = ("index.html", "en/index.html")


def build_sample(folder: Path) -> dict[str, str]:
    """Build the sample site into `folder` and return its two pages' text, the inline
    stylesheet cut down to a mark: a change of style is not a change of the builder's."""
    build(folder, head=load_head(SAMPLE / "head.json"), content=SAMPLE)
    return {page: _mark_style((folder / page).read_text("utf-8")) for page in PAGES}


def _mark_style(text: str) -> str:
    head, style, rest = text.partition("<style>")
    _, end, tail = rest.partition("</style>")
    assert style and end, "the page has no inline stylesheet"
    return f"{head}<style>/* static/style.css, then static/css/*.css */{end}{tail}"


def refresh() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        pages = build_sample(Path(tmp) / "site")
    shutil.rmtree(GOLDEN, ignore_errors=True)
    for page, text in pages.items():
        path = GOLDEN / page
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
        print(f"wrote {path}")


if __name__ == "__main__":
    refresh()
