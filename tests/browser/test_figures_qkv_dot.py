"""install–long-key driven through their real controls, read-outs checked against the Python
model."""

from __future__ import annotations

import numpy as np
import pytest

from selfattn.claims import mixed_key_score, turn_degrees
from selfattn.head import load_head
from selfattn.numbers import fixed, vector

from .drive import click, drag, next_frame, press, readouts, set_state, state

HEAD = load_head()
TOKENS = HEAD.tokens
R = HEAD.run()["R"]


def x_of(token: str) -> np.ndarray:
    return HEAD.X[HEAD.index(token)]


def test_f01_steps_install_the_matrices_one_by_one(en_at_start):
    page = en_at_start.page
    step = "#install input[type=radio][value='{}']"
    # the line reads x and the arrow installed last, by its formula
    made = "#install .readout:has([data-readout=made]) dt"
    assert state(page, "install") == {"installed": 1}  # at rest W_Q is in: x and q
    page.locator(step.format(0)).check(force=True)
    next_frame(page)  # the figure draws in the next frame
    assert readouts(page, "install")["made"] == "not installed"
    for k, W in enumerate((HEAD.W_Q, HEAD.W_K, HEAD.W_V), start=1):
        page.locator(step.format(k)).check(force=True)
        next_frame(page)  # the figure draws in the next frame
        got = readouts(page, "install")
        assert got["x"] == vector(x_of("it"))
        assert got["made"] == vector(x_of("it") @ W)
        assert page.locator(made).text_content() == f"{'qkv'[k - 1]} = xW{'QKV'[k - 1]}"
    # no slider: a step of three is a row of named steps
    assert page.locator("#install input[type=range]").count() == 0
    page.locator(step.format(0)).check(force=True)
    next_frame(page)  # the figure draws in the next frame
    assert state(page, "install") == {"installed": 0}


def test_f02_drag_moves_every_projection(en_at_start):
    page = en_at_start.page
    drag(page, "drag-input", ".handle", [-1.2, 0.7])
    x = np.array(state(page, "drag-input")["x"])
    assert np.allclose(x, [-1.2, 0.7], atol=0.03)  # the pointer lands where it was aimed
    got = readouts(page, "drag-input")
    for name, W in (("q", HEAD.W_Q), ("v", HEAD.W_V)):  # the pair the prose compares
        assert got[name] == vector(x @ W)


def test_f02_pushing_up_swings_the_query_not_the_value(en_at_start):
    page = en_at_start.page
    press(page, "#drag-input .handle", "ArrowUp", 20)  # 20 × 0.05 = one unit straight up
    x = np.array(state(page, "drag-input")["x"])
    assert np.allclose(x, x_of("it") + np.array([0, 1]), atol=1e-9)
    got = readouts(page, "drag-input")
    q_turn = turn_degrees(x_of("it") @ HEAD.W_Q, x @ HEAD.W_Q)
    v_turn = turn_degrees(x_of("it") @ HEAD.W_V, x @ HEAD.W_V)
    assert got["q.turn"] == f"{fixed(q_turn, 1)}°" and got["v.turn"] == f"{fixed(v_turn, 1)}°"
    assert q_turn >= 3 * v_turn and v_turn < 10


def test_f03_steps_through_all_six_queries(en_at_start):
    page = en_at_start.page
    for step in range(len(TOKENS)):
        token = state(page, "query-meets-keys")["token"]
        got = readouts(page, "query-meets-keys")
        assert got["token"] == TOKENS[token]
        for j, key in enumerate(TOKENS):
            assert got[f"score.{key}"] == fixed(R[token, j])
        assert got["winner"] == TOKENS[int(np.argmax(R[token]))]
        click(page, "#query-meets-keys button[aria-label='Next']")
        assert state(page, "query-meets-keys")["token"] == (token + 1) % len(TOKENS), step


def test_f03_it_prefers_cat(en_at_start):
    got = readouts(en_at_start.page, "query-meets-keys")
    assert (got["score.cat"], got["score.it"], got["winner"]) == ("1.72", "1.14", "cat")


@pytest.mark.parametrize("key", ["the", "and", "ran"])
def test_f03_a_short_key_is_named_in_the_plane_and_lights_with_its_rectangle(en_at_start, key):
    """The three short keys sit by the origin: each still carries its name, and pointing at its
    rectangle lights its arrow and name in the plane."""
    page = en_at_start.page
    fig = "#query-meets-keys"
    assert page.locator(f"{fig} .plane text.label.key[data-token={key}]").text_content() == key
    page.locator(f"{fig} rect.area[data-token={key}]").hover()
    lit = page.eval_on_selector_all(
        f"{fig} .plane .lit", "es => es.map(e => e.getAttribute('data-token'))"
    )
    assert lit.count(key) == 2, lit  # the arrow and its name


@pytest.mark.parametrize("mix", [0.0, 0.37, 1.0])
def test_f04_mixing_merges_both_directions(en_at_start, mix):
    page = en_at_start.page
    set_state(page, "two-maps", {"mix": mix})
    got = readouts(page, "two-maps")
    assert got["cat.ate"] == fixed(mixed_key_score(HEAD, "cat", "ate", mix, scores="R"))
    assert got["ate.cat"] == fixed(mixed_key_score(HEAD, "ate", "cat", mix, scores="R"))


def test_f04_keyboard_reaches_both_ends(en_at_start):
    page = en_at_start.page
    press(page, "#two-maps .handle", "End")
    assert readouts(page, "two-maps") == {"cat.ate": "1.64", "ate.cat": "1.64"}  # raw, as the prose
    press(page, "#two-maps .handle", "Home")
    assert readouts(page, "two-maps") == {"cat.ate": "0.72", "ate.cat": "−0.45"}


def test_f05_score_is_shadow_times_length_and_flips_sign_at_a_right_angle(en_at_start):
    page = en_at_start.page
    key = x_of("cat") @ HEAD.W_K
    for q in ([1.0, 0.5], [-1.5, 1.0], [0.6, -1.2]):
        drag(page, "shadow", ".handle", q)
        qv = np.array(state(page, "shadow")["q"])
        got = readouts(page, "shadow")
        assert got["score"] == fixed(qv @ key)
        assert got["shadow"] == fixed(qv @ key / np.linalg.norm(key))
        assert got["length"] == fixed(np.linalg.norm(key))
    perpendicular = [key[1] / np.linalg.norm(key), -key[0] / np.linalg.norm(key)]
    set_state(page, "shadow", {"q": perpendicular})
    got = readouts(page, "shadow")
    assert got["score"] == "0.00" and got["angle"] == "90°"


def test_f02_end_nudges_the_input_one_unit_up_and_home_brings_it_back(en_at_start):
    page = en_at_start.page
    start = x_of("it").tolist()
    press(page, "#drag-input .handle", "End")
    assert state(page, "drag-input")["x"] == pytest.approx([start[0], start[1] + 1])
    press(page, "#drag-input .handle", "Home")
    assert state(page, "drag-input")["x"] == pytest.approx(start)


def test_f05_end_turns_the_query_round_and_home_brings_it_back(en_at_start):
    """One key press reaches the payoff: End turns the query round, the score's sign flips."""
    page = en_at_start.page
    start = (x_of("it") @ HEAD.W_Q).tolist()
    key = x_of("cat") @ HEAD.W_K
    press(page, "#shadow .handle", "End")
    assert state(page, "shadow")["q"] == pytest.approx([-c for c in start])
    assert readouts(page, "shadow")["score"] == fixed(-(np.array(start) @ key))
    press(page, "#shadow .handle", "Home")
    assert state(page, "shadow")["q"] == pytest.approx(start)


def test_f06_rows_of_bars(en_at_start):
    page = en_at_start.page
    set_state(page, "score-row", {"token": "cat"})
    got = readouts(page, "score-row")
    assert got["score.cat"] == "3.02" == fixed(R.max())
    assert got["top"] == "cat"
    set_state(page, "score-row", {"token": "ate"})
    got = readouts(page, "score-row")
    assert got["score.cat"] == "−0.45" == fixed(R.min())
    assert got["top"] == TOKENS[int(np.argmax(R[HEAD.index("ate")]))]
    click(page, "#score-row button[aria-label='Previous']")
    assert state(page, "score-row")["token"] == HEAD.index("cat")


def test_f07_and_overtakes_cat_at_four_point_four(en_at_start):
    page = en_at_start.page
    slider = "#long-key .handle"
    press(page, slider, "ArrowRight", 33)  # 1.0 + 33 × 0.1 = 4.3
    assert state(page, "long-key")["f"] == pytest.approx(4.3)
    assert readouts(page, "long-key")["winner"] == "cat"
    press(page, slider, "ArrowRight")
    got = readouts(page, "long-key")
    assert got["winner"] == "and"
    assert got["score.and"] == fixed(4.4 * R[HEAD.index("it"), HEAD.index("and")])
