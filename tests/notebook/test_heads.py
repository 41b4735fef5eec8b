"""The heads view: every head as a small map, sorted by a summary, the one clicked in full."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import Browser, expect

from selfattn.notebook import show_heads
from tests.notebook.test_standalone import causal_weights, open_file, readout


def stack(n: int = 30) -> np.ndarray:
    """(3, 4, n, n) random causal heads, with layer 2, head 3 a previous-token head."""
    out = np.stack(
        [np.stack([causal_weights(n, 4 * layer + h) for h in range(4)]) for layer in range(3)]
    )
    out[1, 2] = np.eye(n, k=-1)
    out[1, 2, 0, 0] = 1
    return out


def test_summaries_come_back_as_layers_by_heads_and_a_function_sorts_too() -> None:
    def diagonal(w: np.ndarray) -> float:
        return float(np.trace(w))

    m = show_heads(stack(), by=diagonal, summaries={"last key": lambda w: float(w[:, -1].mean())})
    assert m.by == "diagonal" and m.kind == "heads" and m.side == 30
    table = m.table
    assert set(table) == {
        "entropy",
        "largest weight",
        "first token",
        "previous token",
        "diagonal",
        "last key",
    }
    assert table["previous token"].shape == (3, 4)
    assert np.unravel_index(table["previous token"].argmax(), (3, 4)) == (1, 2)
    with pytest.raises(ValueError, match="by must be one of"):
        show_heads(stack(), by="nothing")


def test_a_click_opens_the_head_and_sorting_puts_the_previous_token_head_first(
    browser: Browser, tmp_path: Path
) -> None:
    path = show_heads(stack(), [f"Ġw{i}" for i in range(30)]).save_html(tmp_path / "heads.html")
    page, foreign, errors = open_file(browser, path)
    thumbs = page.locator("button.thumb")
    expect(thumbs).to_have_count(12)
    values = [float(t.split("\n")[1]) for t in thumbs.all_inner_texts()]
    assert values == sorted(values, reverse=True)  # by entropy, the most diffuse first
    page.get_by_label("sort heads by").select_option("layer, head")
    assert thumbs.all_inner_texts()[:2] == ["L0 H0", "L0 H1"]
    page.get_by_label("sort heads by").select_option("previous token")
    assert thumbs.first.inner_text().split("\n")[:2] == ["L1 H2", "1.000"]
    assert readout(page, "order").startswith("sorted by previous token")
    thumbs.first.click()
    expect(page.locator('[data-readout="head"]')).to_have_text("2 of 0–3")
    assert readout(page, "layer") == "1 of 0–2" and readout(page, "top").startswith("w0 ")
    assert "current" in (thumbs.first.get_attribute("class") or "")
    page.get_by_role("button", name="high first").click()
    assert thumbs.first.inner_text().split("\n")[0] != "L1 H2"
    assert foreign == [] and errors == []
    page.close()


# a notebook may render a widget before it puts it on the page: here the page's widget is
# taken off it just before it renders, and put back 300 ms later
OFF_THE_PAGE = """
const find = Document.prototype.getElementById;
Document.prototype.getElementById = function (id) {
  const el = find.call(this, id);
  if (id === 'selfattn-widget' && el && !window.__moved) {
    window.__moved = true;
    el.remove();
    setTimeout(() => document.body.append(el), 300);
  }
  return el;
};
"""


def test_heads_rendered_off_the_page_are_painted_in_the_theme_once_on_it(
    browser: Browser, tmp_path: Path
) -> None:
    path = show_heads(stack(), [f"w{i}" for i in range(30)]).save_html(tmp_path / "off.html")
    page = browser.new_page(viewport={"width": 1000, "height": 900})
    page.add_init_script(OFF_THE_PAGE)
    page.goto(path.as_uri())
    page.wait_for_selector(".selfattn-nb.heads-view[data-draw-ms]")
    page.wait_for_timeout(600)
    # the top-right block of a causal head is masked: the light paper's wash, never black
    corner = page.evaluate(
        """() => { const c = document.querySelector('#selfattn-widget').shadowRoot
          .querySelector('button.thumb canvas');
          return [...c.getContext('2d').getImageData(c.width - 1, 0, 1, 1).data]; }"""
    )
    assert min(corner[:3]) > 180, corner
    page.close()


@pytest.mark.parametrize(("width", "rows"), [(1280, [8, 8]), (390, [4, 4, 4, 4])])
def test_a_sorted_run_shares_its_heads_evenly_among_rows(
    browser: Browser, tmp_path: Path, width: int, rows: list[int]
) -> None:
    # 16 heads where 15 fit in a row at 1280 px were 15 and one left alone
    m = show_heads(np.stack([stack(12)[0]] * 4))
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.goto(m.save_html(tmp_path / "heads.html").as_uri())
    tops = page.evaluate(
        "() => [...document.querySelector('#selfattn-widget').shadowRoot"
        ".querySelectorAll('.thumb')].map((b) => Math.round(b.getBoundingClientRect().top))"
    )
    assert [tops.count(top) for top in sorted(set(tops))] == rows
    page.close()
