"""F24, row it streamed over the keys in tiles: driven through its real controls, read-outs
checked against the Python model, and onlineSoftmax (attention.js) against a numpy version."""

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


# F24's bugs on the page, by the ids the checker names them with ("reset" is a start state)
NAMED = {
    "none": None,
    "rescale": "online-softmax-no-rescale",
    "divide": "online-softmax-early-normalize",
}


def streamed(s, V, tile: int, bug: str = "none") -> list[Running]:
    """The tiled pass as attention.py computes it, with a bug as F24's state names it."""
    return online_softmax(s, V, tile, NAMED[bug])


def final(tile: int, bug: str) -> np.ndarray:
    s, V = RUN["S"][IT], RUN["V"]
    if bug == "reset":
        m, ell, acc, *_ = online_softmax(RUN["S"][AND], V, tile)[-1]
        return online_softmax(s, V, tile, start=(m, ell, acc))[-1].out
    return streamed(s, V, tile, bug)[-1].out


@pytest.fixture
def page(article_at_start):
    return article_at_start.page


@pytest.mark.parametrize("tile", [1, 2, 3])
def test_tiles_land_on_the_full_pass_output(page, tile):
    page.locator(f"#F24 input[name=tile][value='{tile}']").check()
    next_frame(page)
    assert state(page, "F24") == {"tile": tile, "step": 0, "bug": "none"}
    states = streamed(RUN["S"][IT], RUN["V"], tile)
    for k in range(1, len(states)):
        press(page, "#F24 button[name=next]", "Enter")  # the keyboard, as a reader would
        *_, out, _ = states[k]
        r = clean_readouts(page, "F24")
        assert r["output"] == vector(out)
    assert state(page, "F24")["step"] == len(states) - 1
    assert r["output"] == OUT == prose_numbers(HEAD)["output.it"]
    assert page.get_attribute("#F24 button[name=next]", "aria-disabled") == "true"
    assert page.locator("#F24 circle.point.output").is_visible()


def test_rescale_is_shown_when_the_max_changes(page):
    set_state(page, "F24", {"tile": 1, "step": 0, "bug": "none"})
    assert clean_readouts(page, "F24")["rescale"] == "—"  # no key streamed, no max yet
    s = RUN["S"][IT]
    running = -math.inf
    for k in range(len(s)):
        click(page, "#F24 button[name=next]")
        text = clean_readouts(page, "F24")["rescale"]
        new = max(running, s[k])
        if not math.isfinite(running):
            assert text == "—"
        elif new > running:
            assert text == fixed(math.exp(running - new), 3)
        else:
            assert text.startswith("1")
        running = new


@pytest.mark.parametrize("bug", BUGS[1:])
def test_each_bug_moves_the_landing_point(page, bug):
    tile = 1  # the max arrives in the second tile, so every bug shows
    set_state(page, "F24", {"tile": tile, "step": 0, "bug": "none"})
    page.locator(f"#F24 input[name=bug][value='{bug}']").check()
    next_frame(page)
    for _ in range(len(HEAD.tokens)):
        click(page, "#F24 button[name=next]")
    r = clean_readouts(page, "F24")
    wrong = final(tile, bug)
    assert r["output"] == vector(wrong) != OUT
    assert np.linalg.norm(wrong - RUN["out"][IT]) > 0.02
    assert page.locator("#F24 .arrow.wrong").is_visible()
    assert not page.locator("#F24 .arrow.output").is_visible()


def test_back_and_play_step_and_stop(page):
    set_state(page, "F24", {"tile": 2, "step": 2, "bug": "none"})
    click(page, "#F24 button[name=back]")
    assert state(page, "F24")["step"] == 1
    click(page, "#F24 button[name=play]")
    page.wait_for_function(
        "() => document.getElementById('F24').figure.state.step === 3", timeout=5000
    )
    page.wait_for_timeout(900)
    assert state(page, "F24")["step"] == 3
    assert clean_readouts(page, "F24")["output"] == OUT


def test_every_state_is_free_of_nan(page):
    for tile in (1, 2, 3):
        for bug in BUGS:
            for step in range(len(streamed(RUN["S"][IT], RUN["V"], tile)) + 1):
                set_state(page, "F24", {"tile": tile, "step": step, "bug": bug})
                clean_readouts(page, "F24")
                text = page.inner_text("#F24")
                assert not BAD_TEXT.search(text), (tile, bug, step)
