"""The art direction's checkable decisions (docs/design.md): a composed figure's parts share
their height (no hole beside a short chart), every plane draws a unit at one size (a zoom is
declared and shown), pointing at a token lights its marks across the figure, and the kit's
gallery (/kit/) builds and runs clean in both themes."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .conftest import Watched, open_page
from .drive import FIGURES, LABELS, next_frame


@pytest.fixture(scope="module", params=[1280, 390], ids=["1280", "390"])
def wide_and_phone(request, browser, site_url) -> Iterator[tuple[int, Watched]]:
    watched = open_page(browser, site_url + "en/", width=request.param)
    yield request.param, watched
    assert watched.errors == [], watched.errors
    watched.page.context.close()


# each part of a figure's picture (an SVG, or a box of them) as [left, top, width, height], and
# the figure's height; measured once the figure is on the screen and composed
PARTS = """(id) => {
  const fig = document.getElementById(id);
  const parts = [...fig.querySelectorAll('.stage > .picture > *')]
    .filter((el) => el.tagName === 'svg' || el.querySelector('svg'))
    .map((el) => el.getBoundingClientRect())
    .filter((r) => r.width > 40 && r.height > 40)
    .map((r) => [r.left, r.top, r.width, r.height]);
  return { parts, height: fig.getBoundingClientRect().height };
}"""


def neighbours(parts: list[list[float]]) -> list[tuple[list[float], list[float]]]:
    """Pairs of parts side by side: one to the other's right, their heights overlapping."""
    pairs = []
    for a in parts:
        for b in parts:
            beside = b[0] >= a[0] + a[2] - 1
            overlap = min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]) > 0
            if a is not b and beside and overlap:
                pairs.append((a, b))
    return pairs


def test_parts_side_by_side_share_their_height(wide_and_phone):
    """No part shorter than its neighbour by more than a tenth of the figure's height: a
    short chart beside a tall plane leaves a hole under it (F04's was 36 % of its picture)."""
    _, watched = wide_and_phone
    page = watched.page
    holes = {}
    for figure_id in FIGURES:
        page.evaluate("(id) => document.getElementById(id).scrollIntoView()", figure_id)
        next_frame(page)
        next_frame(page)
        seen = page.evaluate(PARTS, figure_id)
        for a, b in neighbours(seen["parts"]):
            if abs(a[3] - b[3]) > 0.1 * seen["height"]:
                holes[f"{figure_id} ({LABELS[figure_id]})"] = (round(a[3]), round(b[3]))
    assert holes == {}


# px per unit of every plane on the page, over its declared zoom, and its zoom
SCALES = """() => [...document.querySelectorAll('svg.plane')].map((svg) => {
  const frame = JSON.parse(svg.dataset.frame);
  const zoom = frame.zoom ?? 1;
  const box = svg.viewBox.baseVal, shown = svg.getBoundingClientRect();
  const px = Math.min(shown.width / box.width, shown.height / box.height) * frame.unit;
  const badge = svg.querySelector('.zoom-badge');
  const shows = badge && badge.getClientRects().length && badge.style.display !== 'none';
  const said = shows ? badge.textContent : '';
  return [svg.closest('figure').id, px / zoom, zoom, said];
})"""


def test_every_plane_draws_a_unit_at_one_size(wide_and_phone):
    """One world: at a given page width a unit is the same number of px on every plane
    (F01 drew 160, F02 56, F20 444); a plane that zooms says so in its corner ("× 3")."""
    _, watched = wide_and_phone
    page = watched.page
    for figure_id in FIGURES:  # every figure started and composed
        page.evaluate("(id) => document.getElementById(id).scrollIntoView()", figure_id)
        next_frame(page)
    next_frame(page)
    scales = page.evaluate(SCALES)
    assert len(scales) >= 10
    world = min(s[1] for s in scales)
    off = {
        f"{f} ({LABELS[f]})": round(px, 1)
        for f, px, _, _ in scales
        if abs(px - world) > 0.015 * world
    }
    assert off == {}, f"a unit is {world:.1f} px on the other planes"
    unsaid = [f for f, _, zoom, badge in scales if zoom != 1 and badge != f"× {zoom}"]
    assert unsaid == []
    # a zoom is a map's scale step, the same few across the figures (they drew × 1.15, 1.25,
    # 1.5, 2, 3, 3.5 and 5, and a reader saw no reason for any of them)
    steps = {f"{f} ({LABELS[f]})": zoom for f, _, zoom, _ in scales if zoom not in (1, 2, 5)}
    assert steps == {}


# each plane's window shown and its data's range, in units, and its height on the page in px
WINDOWS = """() => [...document.querySelectorAll('svg.plane')].map((svg) => {
  const { x0, x1, y0, y1, unit } = JSON.parse(svg.dataset.frame);
  const box = svg.viewBox.baseVal;
  return [svg.closest('figure').id, box.width / unit, box.height / unit, x1 - x0, y1 - y0,
    svg.getBoundingClientRect().height];
})"""


def test_every_plane_shows_its_data_not_a_wide_window(wide_and_phone):
    """A plane's window is its data's range (and the margin `around` gives it), at the one
    scale: not a column-wide grid with the action small in a corner (F01's 2-unit arrow in a
    7-unit window, F20's walk in a sixth of its plane). It may be taller than its data only to
    share the height of a chart beside it (compose.js's CHART_LEAST, 280 px)."""
    _, watched = wide_and_phone
    page = watched.page
    for figure_id in FIGURES:
        page.evaluate("(id) => document.getElementById(id).scrollIntoView()", figure_id)
        next_frame(page)
    next_frame(page)
    wide = {
        f"{f} ({LABELS[f]})": (round(w, 2), round(h, 2), round(dw, 2), round(dh, 2))
        for f, w, h, dw, dh, px in page.evaluate(WINDOWS)
        if w > dw + 0.05 or (h > dh + 0.05 and px > 281)
    }
    assert wide == {}, "window (w, h) beyond the data's (w, h)"


def lit(page, figure_id: str) -> dict[str, list[str]]:
    """The token marks of a figure that are lit, and those dimmed, by their token."""
    return page.evaluate(
        """(id) => {
          const marks = [...document.querySelectorAll(`#${id} .picture [data-token]`)];
          const by = (keep) => [...new Set(marks.filter(keep).map((m) => m.dataset.token))].sort();
          return {
            lit: by((m) => m.classList.contains('lit')),
            dim: by((m) => !m.classList.contains('lit')
              && Number(getComputedStyle(m).opacity) < 0.5),
          };
        }""",
        figure_id,
    )


def test_pointing_at_a_token_lights_all_its_marks_and_dims_the_rest(en_at_start):
    """Hover cat's bar in the figure where and's key stretches: cat's key arrow and its
    label light with it, and's marks dim; leaving the picture puts everything back."""
    page = en_at_start.page
    page.locator("#long-key").scroll_into_view_if_needed()
    next_frame(page)
    page.hover("#long-key .bars .slot[data-token=cat] .bar")
    page.wait_for_timeout(250)  # the dimming's short fade
    seen = lit(page, "long-key")
    assert "cat" in seen["lit"] and "and" in seen["dim"], seen
    kinds = page.evaluate(
        "() => [...document.querySelectorAll('#long-key .picture .lit')].map((m) => m.tagName)"
    )
    assert {"g", "text"} <= set(kinds), "the arrow of k_cat and its label light with the bar"
    page.mouse.move(2, 2)
    page.wait_for_timeout(250)
    assert lit(page, "long-key")["lit"] == []
    assert page.locator("#long-key .picture.linking").count() == 0


def test_a_matrix_cell_lights_its_query_and_its_key(en_at_start):
    page = en_at_start.page
    page.locator("#attention-map").scroll_into_view_if_needed()
    next_frame(page)
    page.hover("#attention-map .cell[data-row=it][data-column=cat]")
    page.wait_for_timeout(250)
    seen = lit(page, "attention-map")
    assert "it" in str(seen["lit"]) and "cat" in str(seen["lit"]), seen
    page.mouse.move(2, 2)


def test_a_tap_lights_a_token_on_a_phone(browser, site_url):
    """A finger has no hover: a tap on a mark lights its token until the next tap."""
    watched = open_page(browser, site_url + "en/", width=390, has_touch=True, is_mobile=True)
    page = watched.page
    page.locator("#long-key").scroll_into_view_if_needed()
    next_frame(page)
    page.tap("#long-key .bars .slot[data-token=ate] .bar-label")
    page.wait_for_timeout(250)
    assert "ate" in lit(page, "long-key")["lit"]
    assert watched.errors == []
    page.context.close()


@pytest.mark.parametrize(("width", "scheme"), [(1280, "light"), (390, "dark")])
def test_the_kit_gallery_builds_and_runs_clean(browser, site_url, width, scheme):
    """/kit/: each part of the kit, live, in both themes, with no console error."""
    watched = open_page(browser, site_url + "kit/", width=width, color_scheme=scheme)
    page = watched.page
    page.wait_for_function("() => document.querySelectorAll('.kit-theme figure').length === 6")
    page.wait_for_timeout(300)
    for theme in ("light", "dark"):
        section = f".kit-theme[data-kit-theme={theme}]"
        assert page.locator(f"{section} svg.plane").count() == 2
        assert page.locator(f"{section} svg.grid").count() == 2
        assert page.locator(f"{section} svg.grid.weights").count() == 1
        assert page.locator(f"{section} svg.bars").count() == 1
        assert page.locator(f"{section} .zoom-badge").text_content() == "× 3"
        # no native menu: the kit's controls are native inputs drawn in its own style
        assert page.locator(f"{section} select").count() == 0
        assert page.locator(f"{section} input[type=radio]").count() >= 8
    # the two themes paint different papers
    papers = page.evaluate(
        """() => [...document.querySelectorAll('.kit-theme')]
            .map((s) => getComputedStyle(s).backgroundColor)"""
    )
    assert len(set(papers)) == 2
    page.locator("#plane-and-bars-light").scroll_into_view_if_needed()
    page.hover("#plane-and-bars-light .bars .slot[data-token=cat] .bar")
    page.wait_for_timeout(250)
    assert "cat" in lit(page, "plane-and-bars-light")["lit"]
    assert watched.errors == [], watched.errors
    page.context.close()
