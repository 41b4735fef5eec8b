"""Browser tests: the built site served on loopback, and headless Debian Chromium."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from selfattn.site.serve import make_server


@pytest.fixture(scope="session")
def site_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The article, built and served on a free loopback port for the whole session."""
    server = make_server("127.0.0.1", 0, Path(tmp_path_factory.mktemp("site")))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/"
    server.shutdown()
    server.server_close()


class Watched:
    """A page plus what it printed and fetched, so tests can assert a clean run."""

    def __init__(self, page: Page, origin: str) -> None:
        self.page = page
        self.errors: list[str] = []
        self.foreign: list[str] = []
        page.on("console", lambda m: m.type in ("error", "warning") and self.errors.append(m.text))
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on(
            "request",
            # a blob the page made itself (an export's download) is of its own origin
            lambda r: (
                not r.url.startswith((origin, "data:", f"blob:{origin}"))
                and self.foreign.append(r.url)
            ),
        )


def open_page(browser: Browser, url: str, width: int = 1280, **options) -> Watched:
    context = browser.new_context(viewport={"width": width, "height": 900}, **options)
    page = context.new_page()
    origin = "/".join(url.split("/")[:3])
    watched = Watched(page, origin)
    page.goto(url)
    wait_for_figures(page)
    return watched


def wait_for_figures(page: Page, seconds: float = 10) -> None:
    """Until every figure module has started. Polled with evaluate, not wait_for_function,
    whose string predicates the page's Content-Security-Policy rightly refuses to eval."""
    deadline = time.monotonic() + seconds
    started = "[...document.querySelectorAll('figure[data-module]')].every(f => f.figure)"
    while not page.evaluate(started):
        if time.monotonic() > deadline:
            pytest.fail("figures did not start within 10 s")
        page.wait_for_timeout(20)
    # then the text face: when Inter arrives every started figure draws again (page.js) and the
    # page's lines may move; a click sent while they move can press on one element and lift on
    # another, which is no click (seen in CI, on a loaded machine: a guess that revealed nothing)
    page.evaluate(
        "() => document.fonts.ready.then(() => new Promise(r =>"
        " requestAnimationFrame(() => requestAnimationFrame(r))))"
    )


LANGUAGES = {"zh": "", "en": "en/"}

# every figure's state, by id (a JS function of nothing)
STATES_JS = """() => Object.fromEntries([...document.querySelectorAll('figure[data-module]')]
    .map(f => [f.id, f.figure.state]))"""
# set every figure that left its state at load back to it; returns the ids it set
RESET_JS = """initial => Object.entries(initial).filter(([id, s]) => {
    const f = document.getElementById(id).figure;
    if (JSON.stringify(f.state) === JSON.stringify(s)) return false;
    f.set(s);
    return true;
}).map(([id]) => id)"""


class Shared(Watched):
    """A page opened once for many tests, each starting from the figures' states at load."""

    def __init__(self, page: Page, origin: str) -> None:
        super().__init__(page, origin)
        self.initial: dict = {}

    def reset(self) -> None:
        """Every figure back to its state at load, drawn without easing (so no test reads a
        square mid-flight), the media back to the screen's, the share menus closed and the
        focus back on the body."""
        page = self.page
        page.emulate_media(media="screen", reduced_motion="reduce")
        page.evaluate(RESET_JS, self.initial)
        page.evaluate("""() => {
            for (const menu of document.querySelectorAll('details.figure-tools')) menu.open = false;
            document.activeElement?.blur();
        }""")
        page.evaluate(
            "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
        )
        page.emulate_media(reduced_motion="no-preference")


def open_shared(browser: Browser, url: str) -> Shared:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    shared = Shared(page, "/".join(url.split("/")[:3]))
    page.goto(url)
    wait_for_figures(page)
    shared.initial = page.evaluate(STATES_JS)
    return shared


@pytest.fixture(scope="module")
def shared_en(browser: Browser, site_url: str) -> Iterator[Shared]:
    """The English page, opened once per module (its tests set the state they need)."""
    shared = open_shared(browser, site_url + "en/")
    yield shared
    shared.page.context.close()


@pytest.fixture(scope="module", params=list(LANGUAGES.values()), ids=list(LANGUAGES))
def shared_article(request, browser: Browser, site_url: str) -> Iterator[Shared]:
    """Each language page, opened once per module."""
    shared = open_shared(browser, site_url + request.param)
    yield shared
    shared.page.context.close()


def at_start(shared: Shared) -> Iterator[Shared]:
    shared.reset()
    yield shared
    assert shared.errors == [], shared.errors
    assert shared.foreign == [], shared.foreign


@pytest.fixture
def en_at_start(shared_en: Shared) -> Iterator[Shared]:
    """The module's English page with every figure as it was at load; fails the test if the
    page logged an error or asked another origin."""
    yield from at_start(shared_en)


@pytest.fixture
def article_at_start(shared_article: Shared) -> Iterator[Shared]:
    """The module's page in each language, every figure as it was at load (see en_at_start)."""
    yield from at_start(shared_article)


@pytest.fixture(params=list(LANGUAGES.values()), ids=list(LANGUAGES))
def article(request, browser: Browser, site_url: str) -> Iterator[Watched]:
    """Each language page, opened fresh; fails the test if the page logged an error."""
    watched = open_page(browser, site_url + request.param)
    yield watched
    assert watched.errors == [], watched.errors
    assert watched.foreign == [], watched.foreign
    watched.page.context.close()


@pytest.fixture
def en(browser: Browser, site_url: str) -> Iterator[Watched]:
    """The English page only, for figure tests that need one language."""
    watched = open_page(browser, site_url + "en/")
    yield watched
    assert watched.errors == [], watched.errors
    watched.page.context.close()
