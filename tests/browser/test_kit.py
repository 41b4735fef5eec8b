"""The kit's marks, player and state model: end and rule labels off their own marks, the
player's buttons and reduced motion (on a player of its own), and a clamp that keeps no state."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import open_page
from .drive import click, press, set_state, state

HERE = Path(__file__).parent

# every label a chart's marks place, with the mark it names: (figure, label selector, mark selector)
NAMED = [
    ("spread", "text.curve-label >> nth=0", "path.curve:not(.over-d)"),
    ("spread", "text.curve-label >> nth=1", "path.curve.over-d"),
    ("spread", "text.reference-label", "line.reference"),
    ("multiply-leak", "text.curve-label.correct", "path.curve.correct"),
    ("multiply-leak", "text.curve-label.leak", "path.curve.leak"),
    ("multiply-leak", ".losses text.reference-label", ".losses line.reference"),
    ("context-cost", ".cost:not(.ops) text.line-label.all-heads", ".cost:not(.ops) path.all-heads"),
    ("context-cost", ".cost:not(.ops) text.line-label.one-head", ".cost:not(.ops) path.one-head"),
    ("context-cost", ".cost:not(.ops) text.line-label.tokens", ".cost:not(.ops) path.tokens"),
    ("context-cost", ".ops text.line-label.n-squared", ".ops path.n-squared"),
    ("context-cost", ".ops text.line-label.crossover", ".ops line.drop"),
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


# a player of three steps mounted on the page by itself (tiled-pass keeps only back and next): its
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
    names = page.eval_on_selector_all("#tiled-pass .player button", "bs => bs.map(b => b.name)")
    assert names == ["back", "next"]
    set_state(page, "tiled-pass", {"tile": 3, "step": 1, "bug": "none"})
    press(page, "#tiled-pass button[name=next]", "Enter")
    assert state(page, "tiled-pass")["step"] == 2
    assert page.get_attribute("#tiled-pass button[name=next]", "aria-disabled") == "true"


def test_a_refused_order_keeps_the_one_before_it(page):
    set_state(page, "shuffle", {"order": [5, 4, 3, 2, 1, 0]})
    for junk in ([0, 0, 1, 2, 3, 4], "shuffle", [0, 1, 2]):
        set_state(page, "shuffle", {"order": junk})
        assert state(page, "shuffle") == {"order": [5, 4, 3, 2, 1, 0]}
    set_state(page, "shuffle", {"order": [0, 1, 2, 3, 4, 5]})
    assert state(page, "shuffle") == {"order": [0, 1, 2, 3, 4, 5]}


# shadow's key name, at 390 px with the query low and left, cannot stand beside its short key
# (the shadow band, the bracket and the angle crowd it): where it stands, its leader back to
# the key's tip. Distances in screen px: from the name's box to the tip, from the leader's end
# to the tip, from the leader's start to the name's box.
NAME_AND_LEADER = """
const plane = () => document.querySelector('#shadow svg.plane');
const name = () => plane().querySelector('g.labels text.label.key');
const leader = () =>
  [...plane().querySelectorAll('g.leaders line.leader.key')].find((l) => l.style.display === '');
const screen = (x, y) => new DOMPoint(x, y).matrixTransform(plane().getScreenCTM());
const end = (line, k) => screen(line[`x${k}`].baseVal.value, line[`y${k}`].baseVal.value);
const gap = (b, p) =>
  Math.hypot(Math.max(b.left - p.x, 0, p.x - b.right), Math.max(b.top - p.y, 0, p.y - b.bottom));
"""
LEADER = f"""async () => {{
  {NAME_AND_LEADER}
  document.getElementById('shadow').scrollIntoView();
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  const tip = screen(...name().dataset.at.split(',').map(Number));
  const box = name().getBoundingClientRect();
  const line = leader();
  if (!line) return {{ gap: gap(box, tip) }};
  const toTip = Math.hypot(end(line, 2).x - tip.x, end(line, 2).y - tip.y);
  return {{ gap: gap(box, tip), toTip, fromName: gap(box, end(line, 1)) }};
}}"""
# the name moved onto the middle of its own leader (as a placer gone wrong would), and back
ON_LEADER = f"""() => {{
  {NAME_AND_LEADER}
  const text = name(), line = leader(), before = [text.getAttribute('dx'), text.getAttribute('dy')];
  const b = text.getBBox();
  const [x1, y1, x2, y2] = [line.x1, line.y1, line.x2, line.y2].map((a) => a.baseVal.value);
  text.setAttribute('dx', String(Number(before[0] ?? 0) + (x1 + x2) / 2 - (b.x + b.width / 2)));
  text.setAttribute('dy', String(Number(before[1] ?? 0) + (y1 + y2) / 2 - (b.y + b.height / 2)));
  return before;
}}"""
PUT_BACK = f"""([dx, dy]) => {{
  {NAME_AND_LEADER}
  for (const [key, v] of [['dx', dx], ['dy', dy]]) {{
    if (v === null) name().removeAttribute(key);
    else name().setAttribute(key, v);
  }}
}}"""


def test_a_name_set_far_from_its_arrow_has_a_leader_from_its_box_to_the_tip(page):
    # a query around the key: its drop, band and angle crowd the key's name off. Where the
    # name lands depends on the face's widths and the plane's zoom, so the first of a few such
    # queries that sets it far enough for a leader (place.js: more than an em of its 13 px,
    # and a leader no shorter than an em) is checked
    for q in ([-0.8, 0.4], [-0.6, 0.7], [-1.0, 0.2], [-0.4, 1.0], [-1.2, 0.6]):
        set_state(page, "shadow", {"q": q})
        far = page.evaluate(LEADER)
        if "toTip" in far:
            break
    assert far["gap"] > 14, far
    assert far["toTip"] < 6, far  # the leader ends at the tip it names, a few px short
    assert 0 < far["fromName"] < 6, far  # and starts just off the name's box, not on it
    # to the label walk a leader is a mark like any line: a name on one is a hit
    walk = f"(id) => ({(HERE / 'text_on_marks.js').read_text('utf-8')})(id)"
    assert not [hit for hit in page.evaluate(walk, "shadow") if "leader" in hit]
    before = page.evaluate(ON_LEADER)
    assert [hit for hit in page.evaluate(walk, "shadow") if "on line.leader.key" in hit]
    page.evaluate(PUT_BACK, before)


# Every text on a figure's planes and matrices (the kit draws them) that a redraw of the
# state it shows writes anew: an
# attribute written with the value it had (Chromium lays a text out again on any write of its
# x, y, dx or dy), or its children replaced by the same ones (issue 50).
REWRITTEN = """(id) => new Promise((resolve) => {
  const el = document.getElementById(id), hits = [];
  const text = (n) => n && (n.closest?.('text') ?? n.parentElement?.closest('text'));
  const observer = new MutationObserver((records) => {
    for (const r of records) {
      const t = text(r.target);
      if (!t || !t.closest('svg.plane, svg.grid')) continue;
      if (r.type === 'attributes' && r.oldValue === r.target.getAttribute(r.attributeName))
        hits.push(`${t.textContent}: ${r.attributeName}=${r.oldValue}`);
      if (r.type === 'childList') hits.push(`${t.textContent}: children`);
    }
  });
  observer.observe(el.querySelector('.stage'), { subtree: true, childList: true, attributes: true,
    attributeOldValue: true, attributeFilter: ['x', 'y', 'dx', 'dy', 'text-anchor'] });
  el.figure.redraw();
  setTimeout(() => { observer.disconnect(); resolve(hits); }, 0);
})"""


@pytest.mark.parametrize(
    "figure", ["query-meets-keys", "walk-rows", "gradient-finds-cat", "attention-map"]
)
def test_a_redraw_of_the_same_state_writes_no_text_anew(page, figure):
    page.locator(f"#{figure}").scroll_into_view_if_needed()
    assert page.evaluate(REWRITTEN, figure) == []


# A row walked to while the page's frames come 50 ms apart (a device too slow to ease: each
# frame is stamped 50 ms after the one before, whatever the machine running the test): the
# wash's y three frames after the input.
STALLED_EASE = """() => new Promise((done) => {
  const el = document.getElementById('walk-rows'), wash = () => el.querySelector('svg.grid .wash');
  const raf = window.requestAnimationFrame, start = performance.now(), stamps = new Map();
  const stamp = (real) => {
    if (!stamps.has(real)) stamps.set(real, start + 50 * (stamps.size + 1));
    return stamps.get(real);
  };
  window.requestAnimationFrame = (callback) => raf((real) => callback(stamp(real)));
  el.figure.set({ row: (el.figure.state.row + 3) % 6 });
  let n = 0;
  const tick = () => {
    n += 1;
    if (n < 3) return requestAnimationFrame(tick);
    window.requestAnimationFrame = raf;
    done(wash().getAttribute('y'));
  };
  requestAnimationFrame(tick);
})"""


def test_an_ease_on_a_stalling_device_jumps_to_its_end(page):
    page.locator("#walk-rows").scroll_into_view_if_needed()
    page.wait_for_timeout(400)
    seen = page.evaluate(STALLED_EASE)  # 150 ms after the input: mid-ease, had it eased
    page.wait_for_timeout(600)
    assert seen == page.locator("#walk-rows svg.grid .wash").get_attribute("y")
