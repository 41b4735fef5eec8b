"""The layout a reader takes in at a glance (issue 29), measured by figures_audit.js on every
figure at rest, at 1280 px and on a 390 × 844 phone, in both languages:

- the picture spans the text column (its drawings from leftmost to rightmost edge);
- every word in a picture renders at 12 px at least, every number and index at 11 px;
- at most two read-outs, in one line, and none prints a number the picture labels;
- on the phone a figure fits the screen (844 px), and its controls stick to the screen's
  bottom while the figure is on it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.harness import AUDIT

from .conftest import LANGUAGES, Watched, open_page
from .drive import FIGURES, next_frame

SCREENS = [(lang, width) for lang in LANGUAGES for width in (1280, 390)]
PHONE = (390, 844)
LAPTOP = (1280, 800)  # DESIGN.md: a figure with its caption fits a laptop's screen, about 640 px
LAPTOP_BUDGET = 640
# figures still taller than a phone's screen: none since issue 29's redraws; a figure that
# grows past it must be redrawn, not listed here
TALL: set[str] = set()


@pytest.fixture(scope="module", params=SCREENS, ids=[f"{lang}-{w}" for lang, w in SCREENS])
def measured(request, browser, site_url) -> Iterator[tuple[int, dict[str, dict]]]:
    """Each figure's audit on one page, predictions skipped, at one language and width."""
    lang, width = request.param
    height = PHONE[1] if width == PHONE[0] else LAPTOP[1]
    watched: Watched = open_page(
        browser, site_url + LANGUAGES[lang], width=width, reduced_motion="reduce"
    )
    page = watched.page
    page.set_viewport_size({"width": width, "height": height})
    for skip in page.locator(".predict .skip").all():
        skip.click()
    rows = {}
    for figure_id in FIGURES:
        page.evaluate("(id) => document.getElementById(id).scrollIntoView()", figure_id)
        next_frame(page)
        # a figure started only now (when the browser was idle, or once near the screen)
        # puts up its question now: skipped too, or its veiled picture measures 0 wide
        for skip in page.locator(f"#{figure_id} .predict .skip:visible").all():
            skip.click()
            next_frame(page)
        rows[figure_id] = page.evaluate(AUDIT, figure_id)
    yield width, rows
    assert watched.errors == [], watched.errors
    watched.page.context.close()


def test_every_picture_spans_the_column(measured):
    """A chart spans the column. A picture of planes alone may not: DESIGN.md's one world
    draws a unit at one size and crops each plane's window to its data, so a small scene
    stands centred on the page's paper (no card, so no hole) rather than blown up."""
    _, rows = measured
    narrow = {i: round(r["width"] / r["column"], 2) for i, r in rows.items() if not r["planesOnly"]}
    assert {i: s for i, s in narrow.items() if s < 0.9} == {}
    # and a plane alone still takes a fair share of the column (F20's walk at × 5: 0.45)
    planes = {i: round(r["width"] / r["column"], 2) for i, r in rows.items() if r["planesOnly"]}
    assert {i: s for i, s in planes.items() if s < 0.4} == {}


def test_words_render_at_12_px_and_numbers_at_11(measured):
    _, rows = measured
    small = {i: r["small"] for i, r in rows.items() if r["small"]}
    assert small == {}


def test_at_most_two_readouts_and_none_repeats_a_label(measured):
    _, rows = measured
    many = {i: r["readouts"] for i, r in rows.items() if len(r["readouts"]) > 2}
    repeats = {i: r["repeats"] for i, r in rows.items() if r["repeats"]}
    assert (many, repeats) == ({}, {})


def test_a_figure_fits_a_phone_screen(measured):
    width, rows = measured
    if width != PHONE[0]:
        pytest.skip("the phone's budget")
    tall = {i: round(r["height"]) for i, r in rows.items() if r["height"] > PHONE[1]}
    assert set(tall) <= TALL, tall


def test_a_figure_fits_a_laptop_screen(measured):
    width, rows = measured
    if width != LAPTOP[0]:
        pytest.skip("the laptop's budget")
    tall = {i: round(r["height"]) for i, r in rows.items() if r["height"] > LAPTOP_BUDGET}
    assert tall == {}


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_a_question_and_its_veiled_figure_fit_a_phone_screen(browser, site_url, lang):
    """Before the guess the options stand over a hidden picture: all of it fits the screen."""
    watched = open_page(
        browser, site_url + LANGUAGES[lang], width=PHONE[0], reduced_motion="reduce"
    )
    page = watched.page
    page.set_viewport_size({"width": PHONE[0], "height": PHONE[1]})
    heights = {}
    for figure_id in page.evaluate(
        "() => [...document.querySelectorAll('figure.veiled')].map((f) => f.id)"
    ):
        page.evaluate("(id) => document.getElementById(id).scrollIntoView()", figure_id)
        next_frame(page)
        heights[figure_id] = page.evaluate(
            "(id) => document.getElementById(id).getBoundingClientRect().height", figure_id
        )
    assert heights, "no figure asks first"
    assert {i: round(h) for i, h in heights.items() if h > PHONE[1]} == {}
    assert watched.errors == [], watched.errors
    watched.page.context.close()


# where a figure's primary control (its first) is, with the figure scrolled so only the top
# 300 px of its picture are on screen, at the bottom (the controls under the picture would be
# below the screen without sticking), and the screen
STICKY_JS = """(id) => {
  const fig = document.getElementById(id);
  const picture = fig.querySelector('.stage > .picture');
  window.scrollBy(0, picture.getBoundingClientRect().top - (innerHeight - 300));
  const first = fig.querySelector('.stage .controls :is(input, button, select, label)');
  const controls = first.getBoundingClientRect();
  return {top: controls.top, bottom: controls.bottom, screen: innerHeight,
          picture: picture.getBoundingClientRect().bottom};
}"""


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_on_a_phone_the_controls_stay_on_screen_with_their_picture(browser, site_url, lang):
    watched = open_page(browser, site_url + LANGUAGES[lang], width=PHONE[0])
    page = watched.page
    page.set_viewport_size({"width": PHONE[0], "height": PHONE[1]})
    for skip in page.locator(".predict .skip").all():
        skip.click()
    off = {}
    # the figures whose controls sit under a picture taller than the screen leaves them
    for figure_id in FIGURES:
        has = page.evaluate(
            "(id) => document.querySelector(`#${id} .stage .controls`)?.children.length > 0",
            figure_id,
        )
        if not has:
            continue
        at = page.evaluate(STICKY_JS, figure_id)
        next_frame(page)
        at = page.evaluate(STICKY_JS, figure_id)
        if at["bottom"] > at["screen"] + 1 or at["top"] < 0:
            off[figure_id] = at
    assert off == {}
    watched.page.context.close()


UNCOMPOSED_JS = """() => [...document.querySelectorAll('figure[data-module] .picture')]
    .filter((p) => [...p.children].some((part) =>
        (part instanceof SVGSVGElement || part.querySelector(':scope > svg')) && !part.style.width))
    .map((p) => p.closest('figure').id)"""


def test_a_figure_off_screen_is_composed_before_it_is_scrolled_to(browser, site_url):
    """kit/compose.js lays every figure out when it starts, far down the page too (where the
    browser skips layout), so scrolling to one moves nothing: a figure left to compose in the
    frame it came on screen changed height under a reader's press, and the press was lost.
    The first layout query there answered 0 on about one load in two; five loads."""
    for _ in range(5):
        watched = open_page(browser, site_url + "en/")
        next_frame(watched.page)
        assert watched.page.evaluate(UNCOMPOSED_JS) == []
        watched.page.context.close()
