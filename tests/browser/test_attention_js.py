"""attention.js, silent-bugs's buggy head and kit/format.js against fixtures the Python model
writes,
and kit/notation.js's reading of subscripts, run in Chromium."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from selfattn import cost
from selfattn.article import STRETCH
from selfattn.attention import (
    MASK_MODES,
    attention,
    online_softmax,
    softmax,
    spread,
    stacked_alone,
)
from selfattn.bugs import SWITCHES, SilentBugs, buggy_head
from selfattn.claims import width_mix
from selfattn.head import load_head
from selfattn.numbers import cell_weight, fixed, grouped, percent, scientific, size, vector, weight

from .conftest import open_page


def fixtures() -> list[dict]:
    """Random heads of many shapes, every mask mode, with the Python results."""
    rng = np.random.default_rng(7)
    cases = []
    for k in range(24):
        n, d = int(rng.integers(1, 10)), int(rng.integers(1, 9))
        X = rng.normal(size=(n, d))
        W_Q, W_K, W_V = (rng.normal(size=(d, d)) for _ in range(3))
        mask = MASK_MODES[k % 3]
        result = attention(X, W_Q, W_K, W_V, mask)
        cases.append(
            {
                "args": [X.tolist(), W_Q.tolist(), W_K.tolist(), W_V.tolist(), mask],
                "expect": {
                    name: np.where(np.isinf(a), -1e300, a).tolist() for name, a in result.items()
                },
            }
        )
    return cases


@pytest.fixture(scope="module")
def page(browser, site_url):
    watched = open_page(browser, site_url + "en/")
    yield watched.page
    assert watched.errors == []
    watched.page.context.close()


def run_js(page, module: str, body: str, arg):
    """Import a static module on the page and evaluate `body` with it as `m`."""
    return page.evaluate(
        "async (arg) => { const m = await import("
        f"new URL('../static/js/{module}', location.href)); {body} }}",
        arg,
    )


def test_attention_matches_python_on_every_shape_and_mask(page):
    cases = fixtures()
    got = run_js(
        page,
        "attention.js",
        """return arg.map(c => {
             const r = m.attention(...c.args);
             r.S = r.S.map(row => row.map(s => s === -Infinity ? -1e300 : s));
             return r; });""",
        cases,
    )
    for case, result in zip(cases, got, strict=True):
        for name, expected in case["expect"].items():
            np.testing.assert_allclose(result[name], expected, rtol=1e-12, atol=1e-13, err_msg=name)


def test_softmax_rows_at_extremes_match_python(page):
    rows = [[1e308, -1e308, 0.0], [-30.0, 1.0, 2.0], [0.0], [-1e308, -1e308]]
    got = run_js(page, "attention.js", "return arg.map(r => m.softmaxRow(r));", rows)
    for row, weights in zip(rows, got, strict=True):
        np.testing.assert_allclose(weights, softmax(np.array(row)), rtol=1e-14)
    everything_masked = run_js(
        page, "attention.js", "return m.softmaxRow([-Infinity, -Infinity]);", 0
    )
    assert everything_masked == [0, 0]


@pytest.mark.parametrize("divisor", ["none", "sqrt", "d"])
def test_width_experiment_matches_python(page, divisor):
    head = load_head()
    base = head.run()["R"][head.index("ate")].tolist()
    widths = [1, 2, 4, 16, 64, 256]
    got = run_js(
        page,
        "attention.js",
        f"return arg.w.map(w => m.widthMix(arg.base, w, '{divisor}'));",
        {"base": base, "w": widths},
    )
    expected = [width_mix(head, w, divisor).tolist() for w in widths]
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_stacked_layers_alone_match_python(page):
    rng = np.random.default_rng(11)
    cases = []
    for _ in range(6):
        n, d = int(rng.integers(2, 8)), int(rng.integers(1, 4))
        out, W_Q, W_K = rng.normal(size=(n, d)), rng.normal(size=(d, d)), rng.normal(size=(d, d))
        cases.append([out.tolist(), W_Q.tolist(), W_K.tolist()])
    got = run_js(
        page,
        "attention.js",
        "return arg.map(c => { const s = m.stackedAlone(...c, 3); return [s, s.map(m.spread)]; });",
        cases,
    )
    for (out, W_Q, W_K), (stack, spreads) in zip(cases, got, strict=True):
        want = stacked_alone(np.array(out), np.array(W_Q), np.array(W_K), 3)
        np.testing.assert_allclose(stack, [w.tolist() for w in want], rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(spreads, [spread(w) for w in want], rtol=1e-12, atol=1e-14)


def test_number_formats_match_python(page):
    values = [0.0, -0.004, 1.2345, -0.316, 171.4, 1e-14, -2.5e7, 3.0e-7]
    got = run_js(
        page,
        "kit/format.js",
        "return arg.map(x => [m.fixed(x, 2), m.fixed(x, 3), m.scientific(x), m.vector([x, -x])]);",
        values,
    )
    for x, (f2, f3, sci, vec) in zip(values, got, strict=True):
        assert (f2, f3, sci, vec) == (fixed(x, 2), fixed(x, 3), scientific(x), vector([x, -x]))
    sizes = [cost.score_bytes(1024), cost.score_bytes(131072), cost.token_bytes(131072), 512]
    got = run_js(page, "kit/format.js", "return arg.map(b => m.size(b));", sizes)
    assert got == [size(b) for b in sizes]
    counts = [0, 7, 999, 1000, -1000, 131072, -1234567, 17179869184, 10**15]
    got = run_js(page, "kit/format.js", "return arg.map(n => m.grouped(n));", counts)
    assert got == [grouped(n) for n in counts]


def test_ties_round_to_even_as_in_python(page):
    """Exact halves go to the even neighbour at every width; near misses do not."""
    values = [0.5, 2.5, -1.5, 2.25, 0.125, -0.375, 0.0625, 1.0625, 2.675, 1.005, 4503599627370495.5]
    got = run_js(
        page, "kit/format.js", "return arg.map(x => [0, 1, 2, 3].map(d => m.fixed(x, d)));", values
    )
    assert got == [[fixed(x, d) for d in range(4)] for x in values]


def test_notation_splits_subscripts_and_leaves_plain_labels_whole(page):
    """The plain fast path and the pattern agree on where a subscript ends."""
    cases = {
        "x": [["x", ""]],
        "q·k": [["q·k", ""]],
        "q·k_cat": [["q·k", ""], ["cat", "sub"]],
        "x W_Q, W_K": [["x W", ""], ["Q", "sub"], [", W", ""], ["K", "sub"]],
        "10^-14": [["10", ""], ["-14", "sup"]],
        "√d_{head}": [["√d", ""], ["head", "sub"]],
        "(q_it)": [["(q", ""], ["it", "sub"], [")", ""]],
        "": [],
    }
    got = run_js(page, "kit/notation.js", "return arg.map(m.runs);", list(cases))
    assert got == list(cases.values())


def test_weight_formats_match_python(page):
    weights = [0.0, 1.0, 0.30412, 0.0049999, 0.005, 0.00049, 1.2e-14, 0.0915, 0.0105, 0.995]
    got = run_js(
        page,
        "kit/format.js",
        "return arg.map(w => [m.weight(w), m.weight(w, 2), m.cellWeight(w), m.percent(w)]);",
        weights,
    )
    for w, row in zip(weights, got, strict=True):
        assert row == [weight(w), weight(w, 2), cell_weight(w), percent(w)], w


def test_angle_and_matrix_mixing(page):
    head = load_head()
    got = run_js(
        page,
        "attention.js",
        "return [m.angleBetween([1, 0], [0, 2]), m.mixMatrices(arg.WK, arg.WQ, 0.25)];",
        {"WK": head.W_K.tolist(), "WQ": head.W_Q.tolist()},
    )
    assert math.isclose(got[0], 90.0)
    np.testing.assert_allclose(got[1], 0.75 * head.W_K + 0.25 * head.W_Q, rtol=1e-14)


# tiled-pass's bugs as attention.js names them, and as the checker does
TILED_BUGS = {
    "none": None,
    "rescale": "online-softmax-no-rescale",
    "divide": "online-softmax-early-normalize",
}


def test_online_softmax_matches_python(page):
    """Every state of the tiled pass (m, l, acc, the rescale, the output so far and each key's
    share of l), random
    rows and tiles, each bug, and a start carried over from another row."""
    rng = np.random.default_rng(26)
    cases = []
    for k in range(24):
        n, d = int(rng.integers(1, 9)), int(rng.integers(1, 5))
        s, V = rng.normal(scale=3, size=n), rng.normal(size=(n, d))
        start = None
        if k % 4 == 3:
            start = {
                "m": float(rng.normal()),
                "l": float(rng.uniform(0.5, 3)),
                "acc": rng.normal(size=d).tolist(),
            }
        bug = list(TILED_BUGS)[k % 3]
        cases.append(
            {
                "s": s.tolist(),
                "V": V.tolist(),
                "tile": int(rng.integers(1, 4)),
                "bug": bug,
                "start": start,
            }
        )
    got = run_js(
        page,
        "attention.js",
        """return arg.map(c => m
            .onlineSoftmax(c.s, c.V, c.tile, {bug: c.bug, start: c.start ?? undefined})
            .map(x => ({...x, m: x.m === -Infinity ? null : x.m})));""",
        cases,
    )
    for case, states in zip(cases, got, strict=True):
        start = case["start"] and (
            case["start"]["m"],
            case["start"]["l"],
            np.array(case["start"]["acc"]),
        )
        expect = online_softmax(
            np.array(case["s"]), np.array(case["V"]), case["tile"], TILED_BUGS[case["bug"]], start
        )
        assert len(states) == len(expect)
        for js, py in zip(states, expect, strict=True):
            assert js["keys"] == py.keys
            np.testing.assert_allclose(js["terms"], py.terms, rtol=1e-12, atol=1e-300)
            assert (js["m"] is None) == (py.m == -math.inf)
            if js["m"] is not None:
                assert js["m"] == pytest.approx(py.m, rel=1e-12)
            assert js["l"] == pytest.approx(py.l, rel=1e-12, abs=1e-300)
            np.testing.assert_allclose(js["acc"], py.acc, rtol=1e-12, atol=1e-13)
            assert (js["rescale"] is None) == (py.rescale is None)
            if py.rescale is not None:
                assert js["rescale"] == pytest.approx(py.rescale, rel=1e-12)
            assert (js["out"] is None) == (py.out is None)
            if py.out is not None:
                np.testing.assert_allclose(js["out"], py.out, rtol=1e-12, atol=1e-13)
        if case["bug"] == "none" and start is None:  # and the pass lands on softmax(s) @ V
            w = softmax(np.array(case["s"]))
            np.testing.assert_allclose(states[-1]["out"], w @ np.array(case["V"]), rtol=1e-12)


def test_silent_bugs_head_matches_python(page):
    """silent-bugs's head with every combination of its four switches, read forwards and backwards,
    masked and not: keys, weights and outputs as bugs.py computes them."""
    head = load_head()
    n = len(head.tokens)
    cases = []
    for on in itertools.product([False, True], repeat=len(SWITCHES)):
        switches = dict(zip(SWITCHES, on, strict=True))
        for order in (list(range(n)), list(range(n))[::-1]):
            for masked in (True, False):
                run = buggy_head(head, SilentBugs.from_switches(switches), np.array(order), masked)
                expect = {name: a.tolist() for name, a in run.items()}
                cases.append(
                    {"switches": switches, "order": order, "masked": masked, "expect": expect}
                )
    got = run_js(
        page,
        "figures/silent-bugs.js",
        """const head = {...arg.head, index: (t) => arg.head.tokens.indexOf(t)};
           return arg.cases.map(c => m.run(head, c.switches, c.order, c.masked, arg.stretch));""",
        {
            "head": {"tokens": list(head.tokens)}
            | {name: getattr(head, name).tolist() for name in ("X", "W_Q", "W_K", "W_V")},
            "cases": cases,
            "stretch": STRETCH,
        },
    )
    assert len(cases) == 2**4 * 4
    for case, js in zip(cases, got, strict=True):
        for name, expected in case["expect"].items():
            np.testing.assert_allclose(
                js[name], expected, rtol=1e-12, atol=1e-14, err_msg=f"{name} {case}"
            )


@pytest.mark.parametrize("reach", [1e4, 1e5])
def test_a_huge_plane_draws_a_bounded_grid(page, reach):
    """A notebook's q × 1e7 drew a grid line per unit, millions of them, and the page never
    loaded; past 1e16 the step stopped advancing at all. At most 200 lines an axis, and an
    axis still drawn."""
    lines = run_js(
        page,
        "kit/plane.js",
        "const p = m.makePlane({x: [-arg, arg], y: [-arg, arg], unit: 100 / arg, label: 'x'});"
        "const count = (c) => p.root.querySelectorAll(c).length;"
        "return [count('.gridline'), count('.axis')];",
        reach,
    )
    assert lines[0] <= 2 * 201 and lines[1] == 2
