"""Large maps do not mislead: a canvas map whose blocks hold several cells says how it draws
them and offers the mean beside the largest weight, and save_html refuses a page a browser will
not open, saying what to keep."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import Browser

from selfattn.notebook import show_map, store
from tests.notebook.test_standalone import open_file, readout


def test_a_pooled_map_says_how_it_pools_and_draws_by_the_mean_when_asked(
    browser: Browser, tmp_path: Path
) -> None:
    n = 1500  # past the canvas's 640 px: blocks of 3 × 3 cells
    w = np.tril(np.ones((n, n), np.float32))
    w /= w.sum(1, keepdims=True)  # near-uniform causal rows: the map BertViz draws as lattice
    path = show_map(w, title="uniform").save_html(tmp_path / "uniform.html")
    page, foreign, errors = open_file(browser, path)
    said = readout(page, "pooled")
    assert said.startswith("each square is a block of 3 × 3 cells, drawn by")
    canvas = page.locator(".canvas-grid canvas")
    assert "the largest weight of 3 × 3 cells" in (canvas.get_attribute("aria-label") or "")
    page.get_by_label("draw each block by").select_option("mean")
    assert "the mean weight of 3 × 3 cells" in (
        page.locator(".canvas-grid canvas").get_attribute("aria-label") or ""
    )
    assert foreign == [] and errors == []
    page.close()
    assert "Each pixel is the largest weight of 4 × 4 cells." in show_map(w)._still()


def test_save_html_refuses_a_page_too_large_to_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    m = show_map(np.full((4, 3, 64, 64), 1 / 64, np.float32))
    monkeypatch.setattr(store, "MOST_BYTES", 90_000)  # 12 heads of 64²: 49 kB in 8 bits, 98 in 16
    m.save_html(tmp_path / "fits.html", bits=8)
    with pytest.raises(
        ValueError,
        match=r"12 heads of 64 × 64 in 16 bits hold 0\.0983 MB.*past the 0\.09 MB.*bits=8",
    ):
        m.save_html(tmp_path / "big.html", bits=16)
    assert not (tmp_path / "big.html").exists()
    m.save_html(tmp_path / "kept.html", bits=16, layers=[0, 1])  # fewer heads: it fits


def test_the_heads_view_says_its_small_maps_are_pooled(browser: Browser, tmp_path: Path) -> None:
    from selfattn.notebook import show_heads

    w = np.tril(np.ones((100, 100)))
    w /= w.sum(1, keepdims=True)
    page, foreign, errors = open_file(browser, show_heads(w[None]).save_html(tmp_path / "h.html"))
    assert readout(page, "order").endswith("largest weight of 3 × 3 cells")  # 100 over 48 px
    assert foreign == [] and errors == []
    page.close()
