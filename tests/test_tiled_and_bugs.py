"""The tiled pass (attention.online_softmax) and F26's buggy head (bugs.py) against the plain
head: each lands where the maths says, and each bug moves it."""

import math

import numpy as np
import pytest

from selfattn.article import STRETCH
from selfattn.attention import online_softmax, softmax
from selfattn.bugs import SWITCHES, SilentBugs, buggy_head, key_length_ratio, rope
from selfattn.head import load_head

HEAD = load_head()
AND = HEAD.index("and")


@pytest.mark.parametrize("tile", [1, 2, 3, 7])
def test_every_partial_output_is_softmax_over_the_keys_seen(tile):
    rng = np.random.default_rng(tile)
    s, V = rng.normal(scale=4, size=7), rng.normal(size=(7, 3))
    states = online_softmax(s, V, tile)
    assert states[0].out is None and states[0].m == -math.inf
    for state in states[1:]:
        seen = state.keys
        assert state.m == s[:seen].max()
        assert state.l == pytest.approx(np.exp(s[:seen] - state.m).sum(), rel=1e-12)
        np.testing.assert_allclose(state.out, softmax(s[:seen]) @ V[:seen], rtol=1e-12)
        np.testing.assert_allclose(state.terms, np.exp(s[:seen] - state.m), rtol=1e-12)
    assert len(states) == 1 + math.ceil(7 / tile) and states[-1].keys == 7


def test_each_tiled_bug_misses_the_output_once_the_max_grows():
    s, V = np.array([0.0, 3.0, 1.0]), np.eye(3)  # the max arrives in the second tile
    right = softmax(s) @ V
    for bug in ("online-softmax-no-rescale", "online-softmax-early-normalize"):
        wrong = online_softmax(s, V, 1, bug)[-1].out
        assert np.abs(wrong - right).max() > 0.01, bug
    # a row that starts from another row's state instead of from nothing
    carried = online_softmax(s, V, 1, start=(2.0, 1.5, np.ones(3)))[-1].out
    assert np.abs(carried - right).max() > 0.01


TILED_BUGS = [None, "online-softmax-no-rescale", "online-softmax-early-normalize"]


@pytest.mark.parametrize("bug", TILED_BUGS)
def test_the_terms_f24_draws_add_up_to_l(bug):
    """F24 draws l as its keys' terms laid end to end, and what a carried start left before
    them; without the rescale the terms keep the max they arrived under."""
    s, V = np.array([0.0, 3.0, 1.0, 4.0]), np.eye(4)
    for start in (None, (2.0, 1.5, np.ones(4))):
        states = online_softmax(s, V, 1, bug, start)
        for state in states:
            carried = 0.0 if start is None else start[1] * math.exp(start[0] - state.m)
            if bug == "online-softmax-no-rescale":
                carried = 0.0 if start is None else start[1]
            assert state.terms.sum() + carried == pytest.approx(state.l, rel=1e-12)
    kept = online_softmax(s, V, 1, "online-softmax-no-rescale")[-1].terms
    np.testing.assert_allclose(kept, np.exp(s - np.maximum.accumulate(s)))


def test_no_bug_is_the_toy_head_under_its_causal_mask():
    toy = HEAD.run("causal")
    got = buggy_head(HEAD, SilentBugs())
    np.testing.assert_allclose(got["W"], toy["W"], atol=1e-15)
    np.testing.assert_allclose(got["out"], toy["out"], atol=1e-15)
    np.testing.assert_allclose(buggy_head(HEAD, SilentBugs(), masked=False)["W"], HEAD.run()["W"])


def test_each_bug_does_what_its_name_says():
    multiplied = buggy_head(HEAD, SilentBugs(causal_mask_multiplied=True))
    np.testing.assert_allclose(multiplied["W"], HEAD.run("multiply")["W"], atol=1e-15)
    unscaled = buggy_head(HEAD, SilentBugs(scale_missing=True))["W"]
    R = HEAD.run()["R"]
    np.testing.assert_allclose(unscaled, softmax(np.where(np.triu(R, 1) != 0, -np.inf, R)))
    long = buggy_head(HEAD, SilentBugs(long_key_takeover=True))["K"]
    np.testing.assert_allclose(long[AND], STRETCH * HEAD.run()["K"][AND])
    assert key_length_ratio(long) > key_length_ratio(HEAD.run()["K"])
    # positions: with RoPE, reading the sentence backwards changes what each token gets
    reverse = np.arange(len(HEAD.tokens))[::-1]
    for blind, moved in ((True, False), (False, True)):
        bugs = SilentBugs(order_blind=blind)
        plain = buggy_head(HEAD, bugs, masked=False)["out"]
        backwards = buggy_head(HEAD, bugs, reverse, masked=False)["out"]
        assert (np.abs(backwards - plain[reverse]).max() > 1e-9) == moved


def test_rope_turns_row_p_by_p_radians_and_keeps_lengths():
    M = np.array([[1.0, 0.0]] * 4)
    turned = rope(M)
    np.testing.assert_allclose(turned, [[math.cos(p), math.sin(p)] for p in range(4)])
    np.testing.assert_allclose(np.linalg.norm(rope(HEAD.X), axis=1), np.linalg.norm(HEAD.X, axis=1))


def test_the_switches_name_every_bug():
    assert set(SWITCHES.values()) == set(SilentBugs.__dataclass_fields__)
    on = SilentBugs.from_switches(dict.fromkeys(SWITCHES, True))
    assert all(getattr(on, name) for name in SWITCHES.values())


def _section(lang: str, anchor: str) -> str:
    """One section of the prose, from its heading's {#anchor} to the next heading."""
    from selfattn.site.build import CONTENT

    text = (CONTENT / f"{lang}.md").read_text("utf-8")
    return text.split("{#" + anchor + "}")[1].split("\n## ")[0]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_F26s_prose_states_its_own_numbers(lang):
    """The figure is redrawn independently and may drop its notes: the prose says the
    stretch, the stretched row ran and cat's share after the turn itself, from the claims."""
    from selfattn.numbers import fixed
    from selfattn.site.prose_numbers import prose_numbers

    assert prose_numbers(HEAD)["bugs.longkey.stretch"] == fixed(STRETCH, 0)
    bugs = _section(lang, "bugs")
    for claim in ("bugs.longkey.stretch", "bugs.longkey.ran.and", "turn.it.cat"):
        assert "{{claim " + claim + "}}" in bugs, claim
    assert not any(word in bugs for word in ("note under", "下方说明", "下方的说明"))
