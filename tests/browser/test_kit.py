"""The kit's marks, player and state model: end and rule labels off their own marks, the
player's buttons and reduced motion (on a player of its own), and a clamp that keeps no state."""

from __future__ import annotations

import pytest

from .conftest import open_page
from .drive import click, press, set_state, state

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


# a player of three steps mounted on the page by itself (F24 keeps only back and next): its
# steps live in window.playerAt, as a figure's state would
MOUNT_PLAYER = """async () => {
  const { player } = await import(new URL('../static/js/kit/player.js', location.href));
  document.getElementById('kit-player')?.remove();
  const box = Object.assign(document.createElement('div'), { id: 'kit-player' });
  document.body.prepend(box);
  window.playerAt = 0;
  const last = 2;
  const p = player(box, {
    label: 'steps', at: () => window.playerAt, last: () => last, tick: 200,
    go: (step) => {
      window.playerAt = Math.max(0, Math.min(last, step));
      p.show(window.playerAt, last);
    },
  });
  p.show(0, last);
}"""


def test_the_player_steps_starts_over_and_plays_to_the_last_step(page):
    page.evaluate(MOUNT_PLAYER)
    at = lambda: page.evaluate("() => window.playerAt")  # noqa: E731
    press(page, "#kit-player button[name=next]", "Enter")
    press(page, "#kit-player button[name=next]", "Enter")
    assert at() == 2
    assert page.get_attribute("#kit-player button[name=next]", "aria-disabled") == "true"
    click(page, "#kit-player button[name=start]")
    assert at() == 0
    assert page.get_attribute("#kit-player button[name=start]", "aria-disabled") == "true"
    assert page.get_attribute("#kit-player .player", "role") == "group"
    click(page, "#kit-player button[name=play]")
    page.wait_for_function("() => window.playerAt === 2", timeout=5000)
    page.wait_for_timeout(300)
    play = page.locator("#kit-player button[name=play]")
    assert play.text_content() == page.evaluate(
        "() => document.documentElement.lang.startsWith('zh') ? '播放' : 'Play'"
    )


def test_under_reduced_motion_play_takes_one_step_a_press(page):
    page.emulate_media(reduced_motion="reduce")
    try:
        page.evaluate(MOUNT_PLAYER)
        click(page, "#kit-player button[name=play]")
        page.wait_for_timeout(600)  # two ticks of a running player
        assert page.evaluate("() => window.playerAt") == 1
    finally:
        page.emulate_media(reduced_motion="no-preference")


def test_a_figure_keeps_only_the_player_buttons_it_asks_for(page):
    names = page.eval_on_selector_all("#F24 .player button", "bs => bs.map(b => b.name)")
    assert names == ["back", "next"]
    set_state(page, "F24", {"tile": 3, "step": 1, "bug": "none"})
    press(page, "#F24 button[name=next]", "Enter")
    assert state(page, "F24")["step"] == 2
    assert page.get_attribute("#F24 button[name=next]", "aria-disabled") == "true"


def test_a_refused_order_keeps_the_one_before_it(page):
    set_state(page, "F22", {"order": [5, 4, 3, 2, 1, 0]})
    for junk in ([0, 0, 1, 2, 3, 4], "shuffle", [0, 1, 2]):
        set_state(page, "F22", {"order": junk})
        assert state(page, "F22") == {"order": [5, 4, 3, 2, 1, 0]}
    set_state(page, "F22", {"order": [0, 1, 2, 3, 4, 5]})
    assert state(page, "F22") == {"order": [0, 1, 2, 3, 4, 5]}
