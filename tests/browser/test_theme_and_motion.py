"""The reader's settings: a dark theme that is remembered, and reduced motion honoured."""

from __future__ import annotations

from .conftest import open_page


def test_dark_mode_switch_is_remembered(browser, site_url):
    watched = open_page(browser, site_url + "en/", color_scheme="light")
    page = watched.page
    assert page.get_attribute("html", "data-theme") == "light"
    page.click("#theme")
    assert page.get_attribute("html", "data-theme") == "dark"
    assert page.get_attribute("#theme", "aria-pressed") == "true"
    page.reload()
    assert page.get_attribute("html", "data-theme") == "dark"
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(21, 24, 31)"
    page.context.close()


def test_reduced_motion_turns_transitions_off(browser, site_url):
    watched = open_page(browser, site_url + "en/", reduced_motion="reduce")
    duration = watched.page.evaluate(
        "getComputedStyle(document.querySelector('button')).transitionDuration"
    )
    assert duration in ("0s", "")
    watched.page.context.close()
