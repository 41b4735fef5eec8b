"""tiled-pass, row it streamed over the keys in tiles: driven through its real controls, and what it
draws (a strip with a column per tile: the running max m, the rescale factor, ℓ as a bar beside an
outline of itself before the rescale, the output; m as a staircase over the scores) checked against
attention.online_softmax."""

from __future__ import annotations

import math

import numpy as np
import pytest

from selfattn.attention import Running, online_softmax
from selfattn.head import load_head
from selfattn.numbers import fixed, vector
from selfattn.site.prose_numbers import prose_numbers

from .drive import BAD_TEXT, clean_readouts, click, next_frame, press, set_state, state

HEAD = load_head()
IT, AND = HEAD.index("it"), HEAD.index("and")
RUN = HEAD.run()
OUT = vector(RUN["out"][IT])
BUGS = ["none", "rescale", "divide", "reset"]


# tiled-pass's bugs on the page, by the ids the checker names them with ("reset" is a start state)
NAMED = {
    "none": None,
    "rescale": "online-softmax-no-rescale",
    "divide": "online-softmax-early-normalize",
}


def streamed(tile: int, bug: str = "none") -> list[Running]:
    """The tiled pass of row it as attention.py computes it, with a bug as tiled-pass's state names
    it."""
    s, V = RUN["S"][IT], RUN["V"]
    if bug == "reset":
        m, ell, acc, *_ = online_softmax(RUN["S"][AND], V, tile)[-1]
        return online_softmax(s, V, tile, start=(m, ell, acc))
    return online_softmax(s, V, tile, NAMED[bug])


# what the strip draws for the current column, in its own units (a JS function of nothing)
DRAWN_JS = """() => {
  const root = document.querySelector('#tiled-pass svg.running');
  const shown = (e) => e !== null && e.getClientRects().length > 0;
  const num = (e, a) => Number(e.getAttribute(a));
  const text = (name) => {
    const e = root.querySelector(`[data-drawn=${name}]`);
    return shown(e) ? e.textContent : null;
  };
  const now = (sel) => root.querySelector(`${sel}.now`);
  const mLine = now('.m-line');
  const zero = num(root.querySelector('line.baseline'), 'y1');
  const visible = (sel) => [...root.querySelectorAll(sel)].filter(shown);
  const kept = now('rect.kept'), added = now('rect.added'), ghost = now('rect.ghost');
  return {
    m: text('m'), l: text('l'), rescale: text('rescale'),
    mHeight: shown(mLine) ? zero - num(mLine, 'y1') : null,
    lHeight: (shown(kept) ? num(kept, 'height') : 0) + (shown(added) ? num(added, 'height') : 0),
    keptHeight: shown(kept) ? num(kept, 'height') : null,
    ghostHeight: shown(ghost) ? num(ghost, 'height') : null,
    pending: visible('text.bar-label.pending').length,
    placeholders: visible('rect.pending, rect.tile').length,
    dashed: [...root.querySelectorAll('rect')].filter(
      (e) => shown(e) && getComputedStyle(e).strokeDasharray !== 'none').length,
  };
}"""


def drawn(page) -> dict:
    return page.evaluate(DRAWN_JS)


@pytest.fixture
def page(article_at_start):
    """The page with motion off, so what is measured is where a mark rests, not mid-ease."""
    article_at_start.page.emulate_media(reduced_motion="reduce")
    return article_at_start.page


@pytest.mark.parametrize("tile", [1, 2, 3])
def test_tiles_land_on_the_full_pass_output_and_draw_m_and_l_to_scale(page, tile):
    set_state(page, "tiled-pass", {"tile": 1, "step": 0, "bug": "none"})  # no key in yet
    page.locator(f"#tiled-pass input[name=tile][value='{tile}']").evaluate("e => e.click()")
    next_frame(page)
    assert state(page, "tiled-pass") == {"tile": tile, "step": 0, "bug": "none"}
    states = streamed(tile)
    scales = {"m": [], "l": []}
    for k in range(1, len(states)):
        press(page, "#tiled-pass button[name=next]", "Enter")  # the keyboard, as a reader would
        here = states[k]
        got = drawn(page)
        assert got["m"] == fixed(here.m)
        assert got["l"] == fixed(here.l, 3)
        assert got["pending"] == len(HEAD.tokens) - here.keys  # a faint name for each key to come
        assert got["placeholders"] == 0  # no card round a tile, no grey bar for a key to come
        assert got["dashed"] == 0  # dashed is the mask's: nothing here is masked
        scales["m"].append(got["mHeight"] / here.m)
        scales["l"].append(got["lHeight"] / here.l)
        assert clean_readouts(page, "tiled-pass")["output"] == vector(here.out)
    # one scale per quantity: the bars and lines are the numbers, not pictures of them
    for name, ratios in scales.items():
        assert np.ptp(ratios) < 0.01 * np.mean(ratios), name
    assert state(page, "tiled-pass")["step"] == len(states) - 1
    assert clean_readouts(page, "tiled-pass")["output"] == OUT == prose_numbers(HEAD)["output.it"]
    assert page.get_attribute("#tiled-pass button[name=next]", "aria-disabled") == "true"
    assert page.locator("#tiled-pass circle.point.output").is_visible()


def test_when_the_max_jumps_the_old_terms_and_l_shrink_by_the_rescale(page):
    """Row it's max arrives in the second key: with one key a tile, m jumps there, and ℓ
    shrinks by exp(m_old − m_new), drawn as the ratio of ℓ's outline before the rescale to
    what is kept of it."""
    set_state(page, "tiled-pass", {"tile": 1, "step": 0, "bug": "none"})
    states = streamed(1)
    assert drawn(page)["m"] == "−∞"  # nothing arrived: no max yet
    for k in range(1, len(states)):
        click(page, "#tiled-pass button[name=next]")
        here, before = states[k], states[k - 1]
        got = drawn(page)
        if before.l == 0:
            assert got["rescale"] is None
        elif here.m > before.m:
            assert got["rescale"] == f"× {fixed(here.rescale, 3)}"
            assert got["ghostHeight"] / got["keptHeight"] == pytest.approx(
                1 / here.rescale, rel=1e-3
            )
        else:
            assert got["rescale"] == "× 1"
            assert got["ghostHeight"] is None
    jumps = [k for k in range(2, len(states)) if states[k].m > states[k - 1].m]
    assert jumps, "row it's max must arrive after the first tile, or nothing shrinks"


@pytest.mark.parametrize("bug", BUGS[1:])
def test_each_bug_moves_the_landing_point(page, bug):
    tile = 1  # the max arrives in the second tile, so every bug shows
    set_state(page, "tiled-pass", {"tile": tile, "step": 0, "bug": "none"})
    page.locator(f"#tiled-pass input[name=bug][value='{bug}']").evaluate("e => e.click()")
    next_frame(page)
    for _ in range(len(HEAD.tokens)):
        click(page, "#tiled-pass button[name=next]")
    wrong = streamed(tile, bug)[-1].out
    assert clean_readouts(page, "tiled-pass")["output"] == vector(wrong) != OUT
    assert np.linalg.norm(wrong - RUN["out"][IT]) > 0.02
    assert page.locator("#tiled-pass .arrow.wrong").is_visible()
    assert not page.locator("#tiled-pass .arrow.output").is_visible()
    assert drawn(page)["l"] == fixed(streamed(tile, bug)[-1].l, 3)
    # what the bug got wrong is drawn red: the factor it skipped, the output, what another row left
    red = {
        "rescale": "rect.kept.wrong",
        "divide": ".arrow.wrong",  # m and ℓ stay right: the output, on the plane, goes red
        "reset": "rect.kept.wrong",
    }[bug]
    # only the newest tile prints its numbers: a red one among those shown
    assert page.locator(f"#tiled-pass :is({red}) >> visible=true").count()


def test_four_controls_back_and_next(page):
    """At most four controls (issue 29): back, next, the tile size and the bug (a segmented row,
    every bug in sight); no <select>, no drop-down."""
    count = page.evaluate(
        """() => document.querySelectorAll(
            '#tiled-pass .controls :is(button, fieldset.choices):not(.menu-options)').length"""
    )
    assert count == 4
    assert page.locator("#tiled-pass select").count() == 0
    set_state(page, "tiled-pass", {"tile": 2, "step": 2, "bug": "none"})
    click(page, "#tiled-pass button[name=back]")
    assert state(page, "tiled-pass")["step"] == 1
    press(page, "#tiled-pass button[name=back]", "Enter")
    assert state(page, "tiled-pass")["step"] == 0
    assert page.get_attribute("#tiled-pass button[name=back]", "aria-disabled") == "true"
    press(page, "#tiled-pass button[name=back]", "Enter")  # at the first step it stays there
    assert state(page, "tiled-pass")["step"] == 0


def test_a_new_tile_size_keeps_the_keys_streamed(page):
    """Changing the tile size does not throw the pass away: four keys in at one a tile are two
    tiles of two, and round up to two tiles of three."""
    set_state(page, "tiled-pass", {"tile": 1, "step": 4, "bug": "none"})
    page.locator("#tiled-pass input[name=tile][value='2']").evaluate("e => e.click()")
    next_frame(page)
    assert state(page, "tiled-pass") == {"tile": 2, "step": 2, "bug": "none"}
    page.locator("#tiled-pass input[name=tile][value='3']").evaluate("e => e.click()")
    next_frame(page)
    assert state(page, "tiled-pass") == {"tile": 3, "step": 2, "bug": "none"}


def test_every_state_is_free_of_nan(page):
    for tile in (1, 2, 3):
        for bug in BUGS:
            for step in range(len(streamed(tile)) + 1):
                set_state(page, "tiled-pass", {"tile": tile, "step": step, "bug": bug})
                clean_readouts(page, "tiled-pass")
                text = page.inner_text("#tiled-pass") + page.text_content("#tiled-pass svg.running")
                assert not BAD_TEXT.search(text), (tile, bug, step)
                assert not math.isnan(drawn(page)["lHeight"]), (tile, bug, step)
