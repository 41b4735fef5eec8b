"""Refresh the builder's golden pages after an intended change: `make golden`."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from selfattn.site.build import build

GOLDEN = Path(__file__).parent / "golden"
PAGES = ("index.html", "en/index.html")


def build_pages(folder: Path) -> dict[str, str]:
    """Build the site into `folder` and return its two pages' text."""
    build(folder)
    return {page: (folder / page).read_text("utf-8") for page in PAGES}


def refresh() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        pages = build_pages(Path(tmp) / "site")
    shutil.rmtree(GOLDEN, ignore_errors=True)
    for page, text in pages.items():
        path = GOLDEN / page
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
        print(f"wrote {path}")


if __name__ == "__main__":
    refresh()
