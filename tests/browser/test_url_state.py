"""A figure's state in the address: a link round-trips it, lands on its figure and stays,
starts the figure it names first, and anything malformed in it is clamped or ignored."""

from __future__ import annotations

import zlib
from collections.abc import Iterator

import pytest

from .conftest import Shared, open_page, open_shared
from .drive import DRIVE, FIGURES, KEYS, clean_readouts, next_frame, readouts, state
from .menu import use_menu


@pytest.fixture(scope="module")
def reader(browser, site_url) -> Iterator[Shared]:
    """A second reader's English page, open for the module: links arrive in its address."""
    shared = open_shared(browser, site_url + "en/")
    yield shared
    shared.page.context.close()


def driven_link(page, figure_id: str) -> tuple[dict, str]:
    """The figure's state after a short seeded drive of its controls, and its link. Reduced
    motion, so that a run the drive started (gradient-finds-cat's training) has ended before the
    link."""
    page.emulate_media(reduced_motion="reduce")
    page.evaluate(DRIVE, [figure_id, zlib.crc32(figure_id.encode()), 20, KEYS])
    use_menu(page, figure_id, "Link")
    next_frame(page)
    return state(page, figure_id), page.evaluate("location.href")


def arrive(page, fragment: str) -> None:
    """A link followed in an open page: the address changes, the page reads it."""
    page.evaluate("(fragment) => { location.hash = ''; location.hash = fragment; }", fragment)
    next_frame(page)


@pytest.mark.parametrize("figure_id", FIGURES)
def test_url_state_round_trip(en_at_start, reader, figure_id):
    """Every figure's state, driven away from its start, travels in its link: the other
    reader's page (already open) reads it from the address."""
    original, link = driven_link(en_at_start.page, figure_id)
    assert f"#{figure_id}:" in link
    arrive(reader.page, link[link.index("#") :])
    assert state(reader.page, figure_id) == original
    assert reader.errors == []


@pytest.mark.parametrize(
    "figure_id", ["query-meets-keys", "long-key", "convex-hull", "gradient-finds-cat"]
)
def test_a_link_opened_fresh_starts_its_figure_in_that_state(en_at_start, browser, figure_id):
    """The same from a fresh load: the state read from the address before the figure starts."""
    original, link = driven_link(en_at_start.page, figure_id)
    second = open_page(browser, link)
    assert state(second.page, figure_id) == original
    assert second.errors == []
    second.page.context.close()


@pytest.mark.parametrize("width", [360, 1280])
@pytest.mark.parametrize(
    "target",
    ["query-meets-keys", "fill-matrix", "multiply-leak", "silent-bugs", "tiled-pass", "causal"],
)
def test_a_link_lands_on_its_figure_and_stays(browser, site_url, target, width):
    """#tiled-pass puts tiled-pass at the top of the screen, though everything above it draws (or
    keeps a
    placeholder's height) after the browser's own jump, and a reader's scroll down and back
    up finds it where it was."""
    watched = open_page(browser, site_url + f"en/#{target}", width=width)
    page = watched.page
    top = f"Math.round(document.getElementById('{target}').getBoundingClientRect().top)"
    page.wait_for_timeout(300)
    assert page.evaluate(top) == 0
    page.mouse.wheel(0, 700)
    page.wait_for_timeout(300)
    page.mouse.wheel(0, -700)
    page.wait_for_timeout(300)
    assert page.evaluate(top) == 0
    assert watched.errors == []
    page.context.close()


# An observer that never reports and an idle time that never comes: what starts is what the
# page starts by itself, before any layout has told it what is near the screen.
SILENT = """
window.IntersectionObserver = class { observe() {} unobserve() {} disconnect() {} };
window.requestIdleCallback = () => 0;
"""


@pytest.mark.parametrize(
    ("fragment", "first"), [("", "install"), ("#shadow", "shadow"), ("#causal", None)]
)
def test_the_first_figure_needed_starts_before_any_layout(browser, site_url, fragment, first):
    """From the top, install is drawn as soon as the page's module runs, not after the observer's
    first report; a link to a figure starts that one instead, and a link to a heading waits
    for the observer."""
    context = browser.new_context(viewport={"width": 360, "height": 740})
    context.add_init_script(SILENT)
    page = context.new_page()
    page.goto(site_url + "en/" + fragment)
    page.wait_for_timeout(500)
    started = page.evaluate(
        "[...document.querySelectorAll('figure[data-module]')].filter(f => f.figure).map(f => f.id)"
    )
    assert started == ([first] if first else [])
    context.close()


MALFORMED = [
    "#long-key:f=4.4",
    "#long-key:f=abc",
    "#long-key:f=%ZZ",
    "#drag-input:x=1e999,NaN",
    "#query-meets-keys:token=dog;extra=1",
    "#F99:x=1",
    "#give-way:=;;==",
    "#context-cost:n=-5",
    "#shadow:q=1,2,3",
]


def clamped_or_ignored(page, fragment: str) -> None:
    for figure_id in FIGURES:
        clean_readouts(page, figure_id, f"after {fragment}")
    if fragment == "#long-key:f=4.4":
        assert (
            state(page, "long-key") == {"f": 4.4} and readouts(page, "long-key")["winner"] == "and"
        )
    if fragment == "#long-key:f=abc":
        assert state(page, "long-key") == {"f": 1}


@pytest.mark.parametrize("fragment", MALFORMED)
def test_malformed_url_state_is_clamped_or_ignored(reader, fragment):
    reader.reset()
    arrive(reader.page, fragment)
    assert reader.errors == []
    clamped_or_ignored(reader.page, fragment)


@pytest.mark.parametrize(
    "fragment", ["#long-key:f=4.4", "#long-key:f=abc", "#drag-input:x=1e999,NaN"]
)
def test_malformed_url_state_on_a_fresh_load(browser, site_url, fragment):
    watched = open_page(browser, site_url + "en/" + fragment)
    assert watched.errors == []
    clamped_or_ignored(watched.page, fragment)
    watched.page.context.close()


@pytest.mark.parametrize(("fragment", "slug"), [("#F07:f=4.4", "long-key"), ("#F24", "tiled-pass")])
def test_a_link_of_before_the_slugs_opens_the_figure_it_opened(browser, site_url, fragment, slug):
    """Links shared while figures were named by number (#F07:f=4.4, #F24) keep opening that
    figure (share.js LEGACY), whatever label a later page gives it."""
    opened = open_page(browser, site_url + "en/" + fragment)
    page = opened.page
    page.wait_for_function("(id) => document.getElementById(id)?.figure", arg=slug)
    if ":" in fragment:
        assert state(page, slug) == {"f": 4.4}
    top = page.evaluate("(id) => document.getElementById(id).getBoundingClientRect().top", slug)
    assert abs(top) < 900, "the old link did not bring its figure onto the screen"
    assert opened.errors == []
    page.context.close()
