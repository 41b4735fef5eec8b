"""The kit's marks, player and state model in the figures that use them: end and rule labels
off their own marks, the player's buttons and reduced motion, and a clamp that keeps no state."""

from __future__ import annotations

import pytest

from .conftest import open_page
from .drive import click, next_frame, press, set_state, state

# every label a chart's marks place, with the mark it names: (figure, label selector, mark selector)
NAMED = [
    ("F14", "text.curve-label >> nth=0", "path.curve:not(.over-d)"),
    ("F14", "text.curve-label >> nth=1", "line.leader"),
    ("F14", "text.reference-label", "line.reference"),
    ("F19", "text.curve-label.correct", "path.curve.correct"),
    ("F19", "text.curve-label.leak", "path.curve.leak"),
    ("F19", ".losses text.reference-label", ".losses line.reference"),
    ("F23", ".cost:not(.ops) text.line-label.all-heads", ".cost:not(.ops) path.all-heads"),
    ("F23", ".cost:not(.ops) text.line-label.one-head", ".cost:not(.ops) path.one-head"),
    ("F23", ".cost:not(.ops) text.line-label.tokens", ".cost:not(.ops) path.tokens"),
    ("F23", ".ops text.line-label.n-squared", ".ops path.n-squared"),
    ("F23", ".ops text.line-label.crossover", ".ops line.drop"),
]

# how many points along a mark fall inside its label's box (its own box, in the chart's units)
ON_LABEL = """([text, mark]) => {
  const b = text.getBBox(), length = mark.getTotalLength();
  let inside = 0;
  for (let i = 0; i <= 400; i += 1) {
    const p = mark.getPointAtLength((length * i) / 400);
    if (p.x > b.x && p.x < b.x + b.width && p.y > b.y && p.y < b.y + b.height) inside += 1;
  }
  return inside;
}"""


@pytest.fixture(scope="module", params=["en/", ""], ids=["en", "zh"])
def page(request, browser, site_url):
    watched = open_page(browser, site_url + request.param, width=390)
    yield watched.page
    assert watched.errors == [], watched.errors
    watched.page.context.close()


@pytest.mark.parametrize(("figure", "label", "mark"), NAMED)
def test_a_mark_label_sits_off_its_own_mark(page, figure, label, mark):
    text = page.locator(f"#{figure} {label}")
    assert text.text_content()
    handles = [text.element_handle(), page.locator(f"#{figure} {mark}").element_handle()]
    assert page.evaluate(ON_LABEL, handles) == 0


def test_the_player_steps_starts_over_and_plays_to_the_last_tile(page):
    set_state(page, "F24", {"tile": 3, "step": 1, "bug": "none"})
    press(page, "#F24 button[name=next]", "Enter")
    assert state(page, "F24")["step"] == 2
    assert page.get_attribute("#F24 button[name=next]", "aria-disabled") == "true"
    click(page, "#F24 button[name=start]")
    assert state(page, "F24")["step"] == 0
    assert page.get_attribute("#F24 button[name=start]", "aria-disabled") == "true"
    assert page.get_attribute("#F24 .player", "role") == "group"
    click(page, "#F24 button[name=play]")
    page.wait_for_function(
        "() => document.getElementById('F24').figure.state.step === 2", timeout=5000
    )
    next_frame(page)
    play = page.locator("#F24 button[name=play]")
    assert play.text_content() == page.evaluate(
        "() => document.documentElement.lang.startsWith('zh') ? '播放' : 'Play'"
    )


def test_under_reduced_motion_play_takes_one_step_a_press(page):
    page.emulate_media(reduced_motion="reduce")
    try:
        set_state(page, "F24", {"tile": 1, "step": 0, "bug": "none"})
        click(page, "#F24 button[name=play]")
        page.wait_for_timeout(1600)  # two ticks of a running player
        assert state(page, "F24")["step"] == 1
    finally:
        page.emulate_media(reduced_motion="no-preference")


def test_a_refused_order_keeps_the_one_before_it(page):
    set_state(page, "F22", {"order": [5, 4, 3, 2, 1, 0]})
    for junk in ([0, 0, 1, 2, 3, 4], "shuffle", [0, 1, 2]):
        set_state(page, "F22", {"order": junk})
        assert state(page, "F22") == {"order": [5, 4, 3, 2, 1, 0]}
    set_state(page, "F22", {"order": [0, 1, 2, 3, 4, 5]})
    assert state(page, "F22") == {"order": [0, 1, 2, 3, 4, 5]}
