"""positions-turn driven through its sliders: the turned head the page draws is claims.turned's, to
the
precision it prints; shifting every position leaves the score and the row exactly where they
were; at θ = 1 it is silent-bugs's RoPE and the prose's numbers."""

from __future__ import annotations

import pytest

from selfattn.article import TURN_SHIFTS
from selfattn.claims import BY_ID, turned
from selfattn.head import load_head
from selfattn.numbers import fixed, grouped

from .conftest import open_page
from .drive import press, readouts, set_state, state

HEAD = load_head()
IT, CAT = HEAD.index("it"), HEAD.index("cat")
SEEN = HEAD.tokens[: IT + 1]


@pytest.fixture(scope="module")
def page(browser, site_url):
    watched = open_page(browser, site_url + "en/")
    watched.page.locator("#positions-turn").scroll_into_view_if_needed()
    yield watched.page
    assert watched.errors == [], watched.errors
    assert watched.foreign == [], watched.foreign
    watched.page.context.close()


def expected(theta: float, shift: int) -> dict[str, str]:
    R, W = turned(HEAD, theta, shift, mask="causal")
    return {
        "score": fixed(float(R[IT, CAT])),
        "positions": f"i = {grouped(IT + shift)}, j = {grouped(CAT + shift)}",
        **{f"w.{token}": fixed(float(W[IT, j])) for j, token in enumerate(SEEN)},
    }


def shown(page) -> dict[str, str]:
    return {k: v for k, v in readouts(page, "positions-turn").items() if k != "angle"}


@pytest.mark.parametrize("theta", [0, 0.5, 1, 2.09, 3.14])
@pytest.mark.parametrize("shift", [0, 3, TURN_SHIFTS[-1]])
def test_the_page_turns_as_python_does(page, theta, shift):
    set_state(page, "positions-turn", {"theta": theta, "shift": shift})
    assert shown(page) == expected(theta, shift)


def test_shifting_every_position_changes_no_score_and_no_weight(page):
    """The shift slider, key by key: each position turns further, the picture's numbers stay."""
    set_state(page, "positions-turn", {"theta": 1.37, "shift": 0})
    at_zero = readouts(page, "positions-turn")
    slider = "#positions-turn input[name=shift]"
    for shift in range(1, TURN_SHIFTS[-1] + 1):
        press(page, slider, "ArrowRight")
        assert state(page, "positions-turn")["shift"] == shift
        now = readouts(page, "positions-turn")
        assert now.pop("positions") != at_zero["positions"]
        assert now == {k: v for k, v in at_zero.items() if k != "positions"}


def test_at_one_radian_it_is_the_prose_s_turn(page):
    set_state(page, "positions-turn", {"theta": 1, "shift": 0})
    r = readouts(page, "positions-turn")
    assert r["score"] == BY_ID["turn.it.cat.raw"].computed(HEAD)
    assert r["w.cat"] == BY_ID["turn.it.cat"].computed(HEAD)
    for claim_id in ("turn.it.cat.raw", "turn.it.cat"):
        span = page.locator(f"[data-claim='{claim_id}']").first
        assert span.text_content() == BY_ID[claim_id].computed(HEAD)


def test_theta_zero_is_the_head_without_positions(page):
    set_state(page, "positions-turn", {"theta": 0, "shift": 5})
    r = readouts(page, "positions-turn")
    assert r["score"] == BY_ID["qk.it.cat.raw"].computed(HEAD)
    assert r["w.cat"] == BY_ID["causal.it.cat"].computed(HEAD)
