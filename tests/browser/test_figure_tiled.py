"""F24, row it streamed over the keys in tiles: driven through its real controls, read-outs
checked against the Python model, and onlineSoftmax (attention.js) against a numpy version."""

from __future__ import annotations

import math

import numpy as np
import pytest

from selfattn.head import load_head
from selfattn.numbers import fixed, vector
from selfattn.site.prose_numbers import prose_numbers

from .drive import BAD_TEXT, clean_readouts, click, next_frame, press, set_state, state
from .test_attention_js import run_js

HEAD = load_head()
IT, AND = HEAD.index("it"), HEAD.index("and")
RUN = HEAD.run()
OUT = vector(RUN["out"][IT])
BUGS = ["none", "rescale", "divide", "reset"]


def streamed(s, V, tile, bug="none", start=None):
    """The tiled pass in numpy: (m, ℓ, accumulator, partial output) before and after each tile."""
    m, ell, acc = start if start is not None else (-math.inf, 0.0, np.zeros(V.shape[1]))
    states = [(m, ell, acc, acc / ell if ell > 0 else None)]
    for a in range(0, len(s), tile):
        new = max(m, s[a : a + tile].max())
        c = math.exp(m - new) if math.isfinite(m) else 0.0
        c = 1.0 if bug == "rescale" and math.isfinite(m) else c
        p = np.exp(s[a : a + tile] - new)
        total = c * acc + p @ V[a : a + tile]
        ell = c * ell + p.sum()
        acc = total / ell if bug == "divide" else total
        m = new
        states.append((m, ell, acc, acc if bug == "divide" else acc / ell))
    return states


def final(tile: int, bug: str) -> np.ndarray:
    s, V = RUN["S"][IT], RUN["V"]
    if bug == "reset":
        m, ell, acc, _ = streamed(RUN["S"][AND], V, tile)[-1]
        return streamed(s, V, tile, start=(m, ell, acc))[-1][3]
    return streamed(s, V, tile, bug)[-1][3]


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
        m, ell, _, out = states[k]
        r = clean_readouts(page, "F24")
        assert r["m"] == fixed(m)
        assert r["l"] == fixed(ell, 3)
        assert r["output"] == vector(out)
    assert state(page, "F24")["step"] == len(states) - 1
    assert r["output"] == OUT == prose_numbers(HEAD)["output.it"]
    assert page.get_attribute("#F24 button[name=next]", "aria-disabled") == "true"
    assert page.locator("#F24 circle.point.output").is_visible()


def test_rescale_is_shown_when_the_max_changes(page):
    set_state(page, "F24", {"tile": 1, "step": 0, "bug": "none"})
    assert clean_readouts(page, "F24")["m"] == "−∞"
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


def test_online_softmax_matches_numpy(page):
    rng = np.random.default_rng(26)
    cases = []
    for k in range(20):
        n, d = int(rng.integers(1, 9)), int(rng.integers(1, 5))
        s, V = rng.normal(scale=3, size=n), rng.normal(size=(n, d))
        cases.append(
            {"s": s.tolist(), "V": V.tolist(), "tile": int(rng.integers(1, 4)), "bug": BUGS[k % 3]}
        )
    got = run_js(
        page,
        "attention.js",
        "return arg.map(c => m.onlineSoftmax(c.s, c.V, c.tile, {bug: c.bug}).map(x => x.out));",
        cases,
    )
    for case, outs in zip(cases, got, strict=True):
        expect = streamed(np.array(case["s"]), np.array(case["V"]), case["tile"], case["bug"])
        assert outs[0] is None
        np.testing.assert_allclose(outs[1:], [e[3] for e in expect[1:]], rtol=1e-12, atol=1e-13)
        if case["bug"] == "none":
            w = np.exp(np.array(case["s"]) - max(case["s"]))
            np.testing.assert_allclose(outs[-1], w / w.sum() @ np.array(case["V"]), rtol=1e-12)
