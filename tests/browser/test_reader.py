"""Reader experience: axe, keyboard, URL state, export, print, dark mode, predict-then-see."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from selfattn.head import load_head
from selfattn.numbers import fixed

from .conftest import open_page
from .drive import FIGURES, clean_readouts, next_frame, readouts, state

AXE = (
    Path(__file__).resolve().parents[2]
    / ".venv"
    / "node"
    / "node_modules"
    / "axe-core"
    / "axe.min.js"
)


def axe_violations(page) -> list[dict]:
    if not AXE.exists():
        pytest.fail(f"axe-core missing at {AXE}: `make test` installs it with npm")
    page.evaluate(AXE.read_text("utf-8"))
    result = page.evaluate("async () => await axe.run(document, { resultTypes: ['violations'] })")
    return [
        {"id": v["id"], "nodes": [n["target"] for n in v["nodes"]][:5]}
        for v in result["violations"]
    ]


@pytest.mark.parametrize(
    ("path", "width", "scheme"),
    [("", 1280, "light"), ("en/", 1280, "light"), ("", 390, "dark"), ("en/", 390, "dark")],
)
def test_axe_finds_no_violation(browser, site_url, path, width, scheme):
    # axe is injected by evaluate, which the page's CSP would rightly refuse as a script tag
    watched = open_page(browser, site_url + path, width, color_scheme=scheme, bypass_csp=True)
    page = watched.page
    assert page.get_attribute("html", "data-theme") == scheme
    assert axe_violations(page) == []
    watched.page.context.close()


def test_every_figure_is_usable_by_keyboard_alone(en):
    """Tab reaches every control of every figure, each shows a focus ring, and keys act."""
    page = en.page
    seen: dict[str, int] = {}
    page.focus("header a")
    for _ in range(600):
        page.keyboard.press("Tab")
        info = page.evaluate(
            """() => { const a = document.activeElement; const f = a.closest('figure');
                return { figure: f ? f.id : null, tag: a.tagName,
                         tool: a.classList.contains('tool'),
                         outline: getComputedStyle(a).outlineStyle,
                         ring: getComputedStyle(a.querySelector?.('.knob') ?? a).stroke }; }"""
        )
        if info["figure"] and not info["tool"]:
            seen[info["figure"]] = seen.get(info["figure"], 0) + 1
            assert info["outline"] != "none" or info["ring"] != "none", info
        if info["tag"] == "BODY":
            break
    assert sorted(seen) == FIGURES, (
        f"figures without a keyboard control: {set(FIGURES) - set(seen)}"
    )


def use_menu(page, figure_id: str, item: str) -> None:
    """Open a figure's share menu (⋯) and press one of its items, as a reader would."""
    menu = page.locator(f"#{figure_id} .figure-tools")
    if menu.get_attribute("open") is None:
        menu.locator("summary").click()
    menu.locator(f"button:has-text('{item}')").click()


def test_the_share_menu_is_one_quiet_control_until_opened(en):
    page = en.page
    closed = page.locator("#F07 .figure-tools button")
    assert closed.count() == 4 and not any(b.is_visible() for b in closed.all())
    page.locator("#F07 .figure-tools summary").click()
    assert all(b.is_visible() for b in closed.all())


@pytest.mark.parametrize("figure_id", FIGURES)
def test_url_state_round_trip(browser, site_url, figure_id):
    first = open_page(browser, site_url + "en/")
    page = first.page
    original = state(page, figure_id)
    use_menu(page, figure_id, "Link")
    next_frame(page)
    link = page.evaluate("location.href")
    assert f"#{figure_id}:" in link
    page.context.close()
    second = open_page(browser, link)
    assert state(second.page, figure_id) == original
    assert second.errors == []
    second.page.context.close()


@pytest.mark.parametrize("width", [360, 1280])
@pytest.mark.parametrize("target", ["F03", "F08", "F19", "F26", "F24", "causal"])
def test_a_link_lands_on_its_figure_and_stays(browser, site_url, target, width):
    """#F24 puts F24 at the top of the screen, though everything above it draws (or keeps a
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


@pytest.mark.parametrize(("fragment", "first"), [("", "F01"), ("#F05", "F05"), ("#causal", None)])
def test_the_first_figure_needed_starts_before_any_layout(browser, site_url, fragment, first):
    """From the top, F01 is drawn as soon as the page's module runs, not after the observer's
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


@pytest.mark.parametrize(
    "fragment",
    [
        "#F07:f=4.4",
        "#F07:f=abc",
        "#F07:f=%ZZ",
        "#F02:x=1e999,NaN",
        "#F03:token=dog;extra=1",
        "#F99:x=1",
        "#F12:=;;==",
        "#F23:n=-5",
        "#F05:q=1,2,3",
    ],
)
def test_malformed_url_state_is_clamped_or_ignored(browser, site_url, fragment):
    watched = open_page(browser, site_url + "en/" + fragment)
    page = watched.page
    assert watched.errors == []
    for figure_id in FIGURES:
        clean_readouts(page, figure_id, f"after {fragment}")
    if fragment == "#F07:f=4.4":
        assert state(page, "F07") == {"f": 4.4} and readouts(page, "F07")["winner"] == "and"
    if fragment == "#F07:f=abc":
        assert state(page, "F07") == {"f": 1}
    page.context.close()


@pytest.mark.parametrize("figure_id", FIGURES)
def test_exports_parse(browser, site_url, figure_id):
    watched = open_page(browser, site_url + "en/")
    page = watched.page
    with page.expect_download() as svg_download:
        use_menu(page, figure_id, "SVG")
    svg_text = Path(svg_download.value.path()).read_text("utf-8")
    assert svg_text.startswith("<svg") and 'xmlns="http://www.w3.org/2000/svg"' in svg_text
    with page.expect_download() as png_download:
        use_menu(page, figure_id, "PNG")
    png = Path(png_download.value.path()).read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 1000
    with page.expect_download() as json_download:
        use_menu(page, figure_id, "JSON")
    numbers = json.loads(Path(json_download.value.path()).read_text("utf-8"))
    assert numbers["figure"] == figure_id
    assert numbers["state"] == state(page, figure_id)
    assert numbers["readouts"] == readouts(page, figure_id)
    assert watched.errors == []
    page.context.close()


def test_svg_export_is_valid_xml(browser, site_url):
    import xml.etree.ElementTree as ET

    watched = open_page(browser, site_url)
    with watched.page.expect_download() as download:
        use_menu(watched.page, "F03", "SVG")
    root = ET.parse(download.value.path()).getroot()
    assert root.tag.endswith("svg") and math.isfinite(float(root.get("width")))
    watched.page.context.close()


def test_print_shows_every_figure_without_controls(article):
    page = article.page
    page.emulate_media(media="print")
    hidden = page.evaluate(
        """() => [...document.querySelectorAll(
                'figure input, figure button, .figure-tools, header')]
            .every(e => e.getClientRects().length === 0)"""
    )
    assert hidden
    visible = page.evaluate(
        """[...document.querySelectorAll('figure .stage svg')]
            .filter(s => s.getBoundingClientRect().height > 0).length"""
    )
    assert visible >= 25
    pdf = page.pdf(format="A4")
    assert pdf[:5] == b"%PDF-" and len(pdf) > 50_000


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


@pytest.mark.parametrize("figure_id", ["F03", "F15", "F19"])
def test_predict_then_see(en, figure_id):
    page = en.page
    figure = page.locator(f"#{figure_id}")
    assert "veiled" in figure.get_attribute("class")
    guesses = figure.locator(".guess")
    guesses.nth(0).click()
    assert "veiled" not in (figure.get_attribute("class") or "")
    feedback = figure.locator(".predict-feedback").inner_text()
    assert feedback.startswith(("Right", "Not quite"))
    assert figure.locator(".guess.right").count() == 1


def test_a_prediction_can_be_skipped(en):
    page = en.page
    page.click("#F15 .skip")
    assert "veiled" not in (page.get_attribute("#F15", "class") or "")


def test_handles_announce_their_coordinates(en):
    page = en.page
    page.focus("#F02 .handle")
    page.keyboard.press("ArrowRight")
    next_frame(page)
    text = page.get_attribute("#F02 .handle", "aria-valuetext")
    x, y = load_head().X[load_head().index("it")]  # one step right of the input of it
    assert text == f"x {fixed(x + 0.05)}, y {fixed(y)}"
