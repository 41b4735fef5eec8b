"""two-heads driven through its switches: heads.js retraces heads.py, the page prints Python's rows
and output for every pair of switches, a switch works by keyboard and by touch, the prose's
numbers are the claims' (its labels in every state: test_labels' one walk)."""

from __future__ import annotations

import numpy as np
import pytest

from selfattn import heads
from selfattn.claims import BY_ID
from selfattn.head import load_head
from selfattn.numbers import fixed, vector

from .conftest import open_page
from .drive import click, press, readouts, set_state, state
from .test_attention_js import run_js

HEAD = load_head()
IT = HEAD.index("it")
READ = HEAD.tokens[: IT + 1]
ON: list[tuple[bool, bool]] = [(True, True), (True, False), (False, True), (False, False)]


@pytest.fixture(scope="module")
def page(browser, site_url):
    watched = open_page(browser, site_url + "en/", reduced_motion="reduce")
    watched.page.locator("#two-heads").scroll_into_view_if_needed()
    yield watched.page
    assert watched.errors == [], watched.errors
    assert watched.foreign == [], watched.foreign
    watched.page.context.close()


def expected(on: tuple[bool, bool]) -> dict[str, str]:
    joined = heads.joined(HEAD, on)
    rows = {
        f"h{h + 1}.{token}": fixed(float(joined.weights[h, IT, j]))
        for h in range(2)
        for j, token in enumerate(READ)
    }
    return {"output": vector(joined.output[IT]), **rows}


def test_heads_js_retraces_heads_py(page):
    two = heads.two_heads(HEAD)
    got = run_js(
        page,
        "heads.js",
        "return arg.on.map((on) => m.join(arg.X, arg.heads, on));",
        {"X": HEAD.X.tolist(), "heads": two.to_json(), "on": ON},
    )
    for on, js in zip(ON, got, strict=True):
        want = heads.join(HEAD, two, on)
        for name in ("weights", "outputs", "parts", "output"):
            np.testing.assert_allclose(js[name], getattr(want, name), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("on", ON, ids=lambda on: "-".join("on" if o else "off" for o in on))
def test_the_page_prints_python_s_rows_and_output(page, on):
    set_state(page, "two-heads", {"h1": on[0], "h2": on[1]})
    assert readouts(page, "two-heads") == expected(on)


def test_switches_by_keyboard_and_by_touch(page):
    set_state(page, "two-heads", {"h1": True, "h2": True})
    press(page, "#two-heads input[name=h1]", "Space")
    assert state(page, "two-heads") == {"h1": False, "h2": True}
    assert readouts(page, "two-heads")["output"] == expected((False, True))["output"]
    click(page, "#two-heads label:has(input[name=h2])")
    assert state(page, "two-heads") == {"h1": False, "h2": False}
    press(page, "#two-heads input[name=h1]", "Space")
    click(page, "#two-heads label:has(input[name=h2])")
    assert state(page, "two-heads") == {"h1": True, "h2": True}
    x, y = (BY_ID[f"heads.out.{c}"].computed(HEAD) for c in "xy")
    assert readouts(page, "two-heads")["output"] == f"[{x}, {y}]"


def test_a_head_off_draws_its_part_dashed_to_where_the_output_stood(page):
    """What the output loses is drawn: the switched-off head's part runs from the output's
    tip to the tip it has with both heads on."""
    for h, on in ((0, {"h1": False, "h2": True}), (1, {"h1": True, "h2": False})):
        set_state(page, "two-heads", on)
        drawn = page.evaluate(
            """() => {
              const plane = document.querySelector('#two-heads svg.plane');
              const tip = (g) => g.querySelector('polygon').getAttribute('points').split(' ')[0]
                .split(',').map(Number);
              const parts = [...plane.querySelectorAll('.arrow.part')];
              const output = plane.querySelector('.arrow.output:not(.faint)');
              const whole = plane.querySelector('.arrow.output.faint');
              return { lost: parts.map((g) => g.classList.contains('lost')),
                       lostTip: tip(parts.find((g) => g.classList.contains('lost'))),
                       lostFrom: ['x1', 'y1'].map((a) => Number(parts.find((g) =>
                         g.classList.contains('lost')).querySelector('line').getAttribute(a))),
                       outputTip: tip(output), wholeTip: tip(whole),
                       wholeShown: whole.style.display !== 'none' };
            }"""
        )
        assert drawn["lost"] == [h == 0, h == 1]
        assert drawn["wholeShown"]
        np.testing.assert_allclose(drawn["lostTip"], drawn["wholeTip"], atol=1e-6)
        np.testing.assert_allclose(drawn["lostFrom"], drawn["outputTip"], atol=1e-6)


def test_the_prose_prints_the_claims(page):
    for claim_id in ("heads.h1.it.cat", "heads.h2.it.and", "heads.h2.it.cat", "heads.lost.h1"):
        span = page.locator(f"[data-claim='{claim_id}']").first
        assert span.text_content() == BY_ID[claim_id].computed(HEAD)
    set_state(page, "two-heads", {"h1": True, "h2": True})
    r = readouts(page, "two-heads")
    assert r["h1.cat"] == BY_ID["heads.h1.it.cat"].computed(HEAD)
    assert r["h2.and"] == BY_ID["heads.h2.it.and"].computed(HEAD)
    assert page.locator("[data-claim='heads.out']").first.text_content() == r["output"]
