"""Accessibility: axe on both pages, light and dark, wide and narrow; every figure by keyboard
alone; handles that announce where they are."""

from __future__ import annotations

from pathlib import Path

import pytest

from selfattn.head import load_head
from selfattn.numbers import fixed

from .conftest import open_page
from .drive import FIGURES, next_frame

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
                         // a slider rings its thumb, which getComputedStyle cannot reach: its
                         // rule must be in the page's styles
                         thumb: a.type === 'range' && [...document.styleSheets].some((sheet) =>
                             [...sheet.cssRules].some((r) => r.selectorText?.includes(
                                 'input:focus-visible::-webkit-slider-thumb')
                                 && r.style.boxShadow.includes('var(--ink)'))),
                         ring: getComputedStyle(a.querySelector?.('.knob') ?? a).stroke }; }"""
        )
        if info["figure"] and not info["tool"]:
            seen[info["figure"]] = seen.get(info["figure"], 0) + 1
            assert info["outline"] != "none" or info["ring"] != "none" or info["thumb"], info
        if info["tag"] == "BODY":
            break
    assert sorted(seen) == sorted(FIGURES), (
        f"figures without a keyboard control: {set(FIGURES) - set(seen)}"
    )


def test_handles_announce_their_coordinates(en_at_start):
    page = en_at_start.page
    page.focus("#drag-input .handle")
    page.keyboard.press("ArrowRight")
    next_frame(page)
    text = page.get_attribute("#drag-input .handle", "aria-valuetext")
    x, y = load_head().X[load_head().index("it")]  # one step right of the input of it
    assert text == f"x {fixed(x + 0.05)}, y {fixed(y)}"
