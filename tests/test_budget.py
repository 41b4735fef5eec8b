"""The weight guard: everything one language page loads, its font included, stays within 120 KiB
gzipped."""

from __future__ import annotations

import gzip

from selfattn.site.build import ENTRY, FONT, REST, build, loaded_files

BUDGET = 120 * 1024


def page_weight(site, page: str) -> tuple[int, int]:
    """(raw, gzip) bytes of a page plus every static file it loads: what its head names, and
    the chunk of later figures main.js imports (the modules' own files stay unused)."""
    named = loaded_files(site, page)
    # the stylesheet is inside the page; the font is named by the page's @font-face
    assert set(named) == {"favicon.svg", ENTRY, REST, FONT}, named
    files = [site / page, *(site / "static" / f for f in named)]
    raw = sum(p.stat().st_size for p in files)
    packed = sum(len(gzip.compress(p.read_bytes(), 6)) for p in files)
    return raw, packed


def test_each_language_page_fits_the_budget(tmp_path):
    site = tmp_path / "site"
    build(site)
    for page in ("index.html", "en/index.html"):
        raw, packed = page_weight(site, page)
        print(f"{page}: {raw / 1024:.1f} KiB raw, {packed / 1024:.1f} KiB gzip")
        assert packed <= BUDGET, f"{page} weighs {packed / 1024:.1f} KiB gzipped (budget 120)"
