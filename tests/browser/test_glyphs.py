"""Glyph and colour hygiene (docs/design.md): every label in a figure reads at 4.5:1 against what
it sits on, in the light and the dark scheme; the grey dashed outline is the mask's alone; the
focus ring wears no role's hue and reads at 3:1; a quiz marks its answer without a role colour.

glyphs.js measures the page: each SVG text's colour after its own and its groups' opacity,
over the picture's paper (or the focus wash where it sits in one), and each dashed outline in
a neutral colour (a box, a ring) that is not on a masked thing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import open_page

GLYPHS = (Path(__file__).parent / "glyphs.js").read_text("utf-8")
ROLES = ["--query", "--key", "--value", "--output", "--wrong", "--input", "--masked", "--muted"]
# every figure laid out: the article skips laying out what is far off screen
LAY_OUT = """() => document.querySelectorAll('article > section, article figure')
    .forEach(e => { e.style.contentVisibility = 'visible'; })"""
# the computed value of each CSS colour variable, and the page's paper and panel, as rgb()
COLOURS_JS = """names => {
  const probe = document.createElement('span');
  document.body.append(probe);
  const out = {};
  for (const name of names) {
    probe.style.color = `var(${name})`;
    out[name] = getComputedStyle(probe).color;
  }
  probe.remove();
  return out;
}"""


def luminance(rgb: tuple[float, ...]) -> float:
    def channel(v: float) -> float:
        v /= 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in rgb[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    hi, lo = sorted([luminance(a), luminance(b)], reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def rgb(text: str) -> tuple[float, ...]:
    return tuple(float(v) for v in text[text.index("(") + 1 : -1].replace(",", " ").split()[:3])


@pytest.fixture(scope="module", params=["light", "dark"])
def page(request, browser, site_url):
    watched = open_page(browser, site_url + "en/", color_scheme=request.param)
    watched.page.emulate_media(reduced_motion="reduce")
    watched.page.evaluate(LAY_OUT)
    watched.page.wait_for_timeout(200)
    yield watched.page
    watched.page.context.close()


def test_every_label_reads_at_four_and_a_half_to_one(page):
    dim = page.evaluate(GLYPHS)["dim"]
    assert dim == [], f"{len(dim)} labels below 4.5:1: {dim[:20]}"


def test_the_grey_dashed_outline_is_only_on_masked_things(page):
    stray = page.evaluate(GLYPHS)["dashedGrey"]
    assert stray == [], stray


def test_role_colours_and_muted_text_read_on_paper_panel_and_wash(page):
    colours = page.evaluate(COLOURS_JS, [*ROLES, "--paper", "--panel", "--wash", "--focus"])
    wash = colours["--wash"]
    alpha = float(wash[wash.index("(") + 1 : -1].replace(",", " ").split()[3])
    for ground in ("--paper", "--panel"):
        base = rgb(colours[ground])
        washed = tuple(w * alpha + c * (1 - alpha) for w, c in zip(rgb(wash), base, strict=True))
        for role in ROLES:
            # the mask's grey is drawn in pictures only, on their paper
            if role == "--masked" and ground == "--panel":
                continue
            for name, under in ((ground, base), (f"wash on {ground}", washed)):
                ratio = contrast(rgb(colours[role]), under)
                assert ratio >= 4.5, f"{role} on {name}: {ratio:.2f}:1"
        # the focus ring: 3:1 for a non-text mark, and a hue of its own
        assert contrast(rgb(colours["--focus"]), base) >= 3
    for role in ("--query", "--key", "--value", "--output", "--wrong"):
        assert colours["--focus"] != colours[role], role


def test_a_quiz_answered_greys_out_the_rest_and_marks_the_answer_without_a_role_colour(page):
    quiz = page.locator("figure:has(.predict)").first
    guesses = quiz.locator(".guess")
    right = page.evaluate("el => [...el.querySelectorAll('.guess')].length", quiz.element_handle())
    assert right >= 2
    guesses.nth(0).click()
    styles = page.evaluate(
        """el => [...el.querySelectorAll('.guess')].map(b => {
          const s = getComputedStyle(b);
          return {
            right: b.classList.contains('right'),
            opacity: Number(s.opacity),
            colours: [s.backgroundColor, s.borderTopColor, s.outlineColor, s.color],
          };
        })""",
        quiz.element_handle(),
    )
    colours = page.evaluate(COLOURS_JS, ["--query", "--key", "--value", "--output", "--ink"])
    for guess in styles:
        if guess["right"]:
            assert guess["opacity"] == 1
            for role in ("--query", "--key", "--value", "--output"):
                assert colours[role] not in guess["colours"], role
        else:
            assert guess["opacity"] < 1  # greyed out
            assert colours["--ink"] != guess["colours"][0]  # no solid ink for a wrong pick
