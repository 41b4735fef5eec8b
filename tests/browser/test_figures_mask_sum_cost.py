"""remove-future–silent-bugs driven through their real controls, read-outs checked against the
Python model.

The causal mask (remove-future–multiply-leak), the weighted sum (tip-to-tail–shuffle), the cost
(context-cost, with cost.js
against cost.py), the whole map (attention-map) and the four silent bugs (silent-bugs).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from playwright.sync_api import Page

from selfattn import cost
from selfattn.article import INIT_WIDTH, KEY_LIMIT
from selfattn.attention import (
    causal_mask,
    spread,
    spread_at_init,
    stacked_alone,
)
from selfattn.bugs import SilentBugs, buggy_head, key_length_ratio
from selfattn.claims import BY_ID, convex_gap, output_with_raw_score
from selfattn.head import load_head
from selfattn.numbers import Percent, fixed, grouped, scientific, size, vector
from selfattn.site.prose_numbers import prose_numbers

from .conftest import open_page
from .drive import click, next_frame, press, readouts, set_state, state

HEAD = load_head()
TOKENS = list(HEAD.tokens)
N = len(TOKENS)
IT, CAT, RAN, AND = (HEAD.index(t) for t in ("it", "cat", "ran", "and"))
PROSE = prose_numbers(HEAD)
CAUSAL, OPEN, MULTIPLY = (HEAD.run(m) for m in ("causal", "none", "multiply"))


def claim(claim_id: str) -> str:
    return BY_ID[claim_id].computed(HEAD)


def exact_weight(w: float, decimals: int) -> str:
    """How the mask figures print a weight: an exact zero as 0."""
    return "0" if w == 0 else fixed(w, decimals)


def cell_weight(w: float) -> str:
    """How a map cell prints a weight: 0, <0.01 or two decimals."""
    if w == 0:
        return "0"
    return "<0.01" if w < 0.005 else fixed(w)


@pytest.fixture(scope="module")
def page(browser, site_url):
    watched = open_page(browser, site_url + "en/")
    yield watched.page
    assert watched.errors == [], watched.errors
    assert watched.foreign == [], watched.foreign
    watched.page.context.close()


# -- remove-future: the future removed row by row --------------------------------------------------


def test_F17_masks_row_by_row_and_counts_36_15_21(page):
    set_state(page, "remove-future", {"rows": 0})
    S = OPEN["S"]
    future = causal_mask(N)
    for done in range(1, N + 1):
        press(page, "#remove-future button[name=next]", "Enter")
        r = readouts(page, "remove-future")
        # the row just masked prints its scores, the discarded ones struck
        q = TOKENS[done - 1]
        for j, k in enumerate(TOKENS):
            assert r[f"S.{q}.{k}"] == fixed(S[done - 1, j]), (q, k)
        gone = int(future[:done].sum())
        assert state(page, "remove-future") == {"rows": done}
        assert r["discarded"] == grouped(gone)
        assert r["kept"] == grouped(cost.dot_products(N) - gone)  # of all 36 computed
        dashed = page.locator("#remove-future .cell.masked").count()
        assert dashed == gone
        struck = page.locator("#remove-future .cell.masked .cell-value.greyed").count()
        assert struck == gone, "a discarded score is no longer readable"
    r = readouts(page, "remove-future")
    assert (r["discarded"], r["kept"]) == (PROSE["counts.discarded"], PROSE["counts.kept"])
    assert grouped(cost.dot_products(N)) == PROSE["counts.dot"]
    press(page, "#remove-future button[name=next]", "Enter")  # nothing left to mask
    assert state(page, "remove-future") == {"rows": N}
    click(page, "#remove-future button[name=back]")
    assert readouts(page, "remove-future")["discarded"] == grouped(
        cost.causal_discarded(N)
    )  # ran had none
    click(page, "#remove-future .grid-label.row[data-token=cat]")  # a row masks down to it
    assert state(page, "remove-future") == {"rows": 2}


# -- asking-position: the asking position ----------------------------------------------------------


def test_F18_the_mask_edge_moves_the_query_and_the_row_renormalises(page):
    slider = "#asking-position .handle"
    press(page, slider, "Home")
    r = readouts(page, "asking-position")
    assert r["bar.the"] == claim("causal.pos0.the") == "1.00"
    for position in range(N):
        if position:
            press(page, slider, "ArrowRight")
        r = readouts(page, "asking-position")
        assert state(page, "asking-position") == {"position": position}
        assert page.get_attribute(slider, "aria-valuetext") == f"{position} · {TOKENS[position]}"
        for j, token in enumerate(TOKENS):
            w = CAUSAL["W"][position, j]
            expected = "0" if j > position else fixed(w)
            assert r[f"bar.{token}"] == expected, (position, token)
        # the outline on each bar is the weight without the mask; a masked key's is dashed
        ghosts = page.eval_on_selector_all(
            "#asking-position .bars .slot .ghost", "els => els.map(e => e.style.display !== 'none')"
        )
        assert ghosts == [True] * N
        assert page.locator("#asking-position .bars .ghost.masked").count() == N - 1 - position
        if position == IT:
            assert r["bar.cat"] == claim("causal.it.cat") == "0.34"


# -- multiply-leak: + (−∞) ↔ × 0 -------------------------------------------------------------------


def test_F19_switch_to_multiply_leaks_weight_onto_ran(page):
    set_state(page, "multiply-leak", {"multiply": False})
    r = readouts(page, "multiply-leak")
    assert (r["score.ran"], r["bar.ran"], r["leaked"]) == ("−∞", "0", "0.000")
    assert r["bar.cat"] == fixed(CAUSAL["W"][IT, CAT], 3)
    assert fixed(CAUSAL["W"][IT, CAT]) == claim("causal.it.cat")
    assert r["bar.ran"] == "0"
    assert page.locator("#multiply-leak .bar.leak").count() == 0
    # one line of read-out, the rest drawn: no assertion box, no note inside the figure
    assert set(r) == {"score.ran", "leaked"} | {f"bar.{token}" for token in TOKENS}
    assert page.locator("#multiply-leak .assertion, #multiply-leak .figure-note").count() == 0
    click(page, "#multiply-leak label.switch")
    assert state(page, "multiply-leak") == {"multiply": True}
    r = readouts(page, "multiply-leak")
    leaked = float(MULTIPLY["W"][np.triu_indices(N, 1)].sum())
    assert r["bar.ran"] == claim("mulmask.it.ran") == "0.092"
    assert r["score.ran"] == fixed(MULTIPLY["S"][IT, RAN]) == "0.00"
    assert r["leaked"] == fixed(leaked, 3)
    assert fixed(MULTIPLY["W"][IT].sum(), 3) == "1.000"  # a row-sum check is blind to it
    assert r["bar.cat"] == fixed(MULTIPLY["W"][IT, CAT], 3)
    assert (
        page.locator("#multiply-leak .bar.leak").count() == N - 1 - IT
    )  # ran's weight, drawn as a leak
    for j, token in enumerate(TOKENS):
        assert r[f"bar.{token}"] == exact_weight(MULTIPLY["W"][IT, j], 3)
    press(page, "#multiply-leak input[name=multiply]", "Space")
    assert state(page, "multiply-leak") == {"multiply": False}
    assert readouts(page, "multiply-leak")["bar.ran"] == "0"


# -- tip-to-tail: the terms tip to tail ------------------------------------------------------------


def test_F20_terms_add_tip_to_tail_to_its_output(page):
    set_state(page, "tip-to-tail", {"terms": 0})
    w, V = OPEN["W"][IT], OPEN["V"]
    out = OPEN["out"][IT]
    forward = out / np.linalg.norm(out)
    total = np.zeros(2)
    for k in range(N):
        press(page, "#tip-to-tail button[name=next]", "Enter")
        total = total + w[k] * V[k]
        r = readouts(page, "tip-to-tail")
        assert state(page, "tip-to-tail")["terms"] == k + 1
        assert r["sum"] == vector(total)
        assert float(w[k] * V[k] @ forward) >= 0, "a step turned back"
        # each step named by its weight and token, the newest in bold
        name = page.locator("#tip-to-tail text.term-name").nth(k)
        assert name.text_content() == f"{fixed(w[k])}·v{TOKENS[k]}"
        assert "faint" not in (name.get_attribute("class") or "")
    assert readouts(page, "tip-to-tail")["sum"] == PROSE["output.it"] == "[0.82, 0.81]"
    assert page.locator("#tip-to-tail circle.point.output").is_visible()
    click(page, "#tip-to-tail button[name=back]")
    assert readouts(page, "tip-to-tail")["sum"] == vector(total - w[-1] * V[-1])


def test_F20_the_walk_is_big_enough_to_read(page):
    """The six steps fill their plane: the walk's own window (not the values', twice as far)
    at a zoom the plane says, so the output runs a good part of the column (it ran 120 px,
    its steps a knot at the origin, in a half-empty plane drawn for the values)."""
    set_state(page, "tip-to-tail", {"terms": N})
    seen = page.evaluate(
        """() => {
          const svg = document.querySelector('#tip-to-tail svg.plane');
          const out = svg.querySelector('.arrow.output').getBoundingClientRect();
          const all = svg.getBoundingClientRect();
          return { run: Math.hypot(out.width, out.height), plane: Math.max(all.width, all.height),
            badge: svg.querySelector('.zoom-badge').textContent };
        }"""
    )
    assert seen["run"] >= 240, seen
    assert seen["run"] >= 0.55 * seen["plane"], seen
    assert seen["badge"].startswith("× "), seen


# -- convex-hull: cat's raw score dragged to 8.00 and beyond ---------------------------------------

F21_TOP = 9  # the track runs past the prose's 8.00, so the reader meets no wall there


def f21_expect(raw: float) -> dict[str, str]:
    out = output_with_raw_score(HEAD, "it", "cat", raw)
    v_cat = OPEN["V"][CAT]
    scores = OPEN["R"][IT].copy()
    scores[CAT] = raw
    return {
        "raw.cat": fixed(raw),
        "output": vector(out),
        "gap": Percent()(float(np.linalg.norm(out - v_cat) / np.linalg.norm(v_cat))),
    }


def pick(r: dict[str, str], keys) -> dict[str, str]:
    return {k: r[k] for k in keys}


def test_F21_dragging_cats_bar_to_the_marked_8_gives_the_convex_claim(page):
    set_state(page, "convex-hull", {"raw": float(OPEN["R"][IT, CAT]), "layers": 1})
    page.locator("#convex-hull .handle").evaluate("e => e.scrollIntoView({block: 'center'})")
    knob = page.locator("#convex-hull .handle .knob").bounding_box()
    mark = page.locator("#convex-hull .bars .reference").bounding_box()
    x, y = knob["x"] + knob["width"] / 2, knob["y"] + knob["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x, y - 60, steps=4)
    page.mouse.move(x, mark["y"] + mark["height"] / 2 + 1, steps=4)  # onto the dashed 8.00
    page.mouse.up()
    next_frame(page)
    r = readouts(page, "convex-hull")
    expected = f21_expect(8.0)
    assert pick(r, expected) == expected
    assert r["output"] == PROSE["convex.cat8"] == "[1.21, 0.93]"
    assert r["gap"] == claim("convex.cat8.gap") == Percent()(float(convex_gap(HEAD))) == "1%"
    assert r["raw.cat"] == PROSE["convex.cat8.raw"]
    # and on past it: no wall at the printed number
    page.mouse.move(x, mark["y"])
    page.mouse.down()
    page.mouse.move(x, mark["y"] - 400, steps=6)
    page.mouse.up()
    next_frame(page)
    assert state(page, "convex-hull") == {"raw": F21_TOP, "layers": 1}
    assert pick(readouts(page, "convex-hull"), f21_expect(F21_TOP)) == f21_expect(F21_TOP)


def test_F21_layers_of_attention_alone_shrink_to_one_point(page):
    """Through the layer switch: each layer's six dots inside the last layer's polygon, and the
    spans named on the polygons those the prose states, computed by Python."""
    page.emulate_media(reduced_motion="reduce")  # the dots land at once
    set_state(page, "convex-hull", {"raw": float(OPEN["R"][IT, CAT]), "layers": 1})
    stack = stacked_alone(OPEN["out"], HEAD.W_Q, HEAD.W_K, 3)
    spreads = [PROSE[f"stack.spread.{k}"] for k in ("values", "1", "2", "3")]
    assert spreads == ["2.09", "0.41", "3.8 × 10⁻³", "2.8 × 10⁻⁹"]
    for layers in (2, 3, 1, 3):
        page.locator(f"#convex-hull input[name=layers][value='{layers}']").check()
        next_frame(page)
        assert state(page, "convex-hull")["layers"] == layers
        shown = page.eval_on_selector_all(
            "#convex-hull polygon.layer", "ps => ps.map(p => p.style.display !== 'none')"
        )
        assert shown == [k < layers for k in range(3)]
        dots = page.eval_on_selector_all(
            "#convex-hull circle.layer-dot",
            "ds => ds.map(d => [+d.getAttribute('cx'), +d.getAttribute('cy')])",
        )
        # the plane draws 150 units to 1: the dots are the Python layer's six outputs
        assert spread(np.array(dots)) == pytest.approx(150 * spread(stack[layers - 1]), abs=0.01)
        # the values' polygon, layer 1's and the deepest layer's each named with its span
        named = page.eval_on_selector_all(
            "#convex-hull text.spread",
            "ts => ts.filter(t => t.style.display !== 'none').map(t => t.textContent)",
        )
        assert [spreads[0], spreads[1], spreads[layers]][: min(layers, 2) + 1] == [
            next(s for s in spreads if s in text) for text in named
        ]
    assert spread(stack[2]) < 1e-8 < spread(stack[1]) < spread(stack[0]) < spread(OPEN["V"])
    page.emulate_media(reduced_motion="no-preference")


def test_F21_keyboard_moves_the_score_along_its_track(page):
    set_state(page, "convex-hull", {"layers": 1})
    knob = "#convex-hull .handle"
    press(page, knob, "Home")
    assert state(page, "convex-hull") == {"raw": 0.5, "layers": 1}
    for raw in (0.6, 0.7):
        press(page, knob, "ArrowUp")
        expected = f21_expect(raw)
        assert pick(readouts(page, "convex-hull"), expected) == expected
    press(page, knob, "PageUp")
    assert math.isclose(state(page, "convex-hull")["raw"], 1.7)
    press(page, knob, "End")
    assert pick(readouts(page, "convex-hull"), f21_expect(F21_TOP)) == f21_expect(F21_TOP)
    press(page, knob, "PageDown", times=F21_TOP - 8)
    assert state(page, "convex-hull") == {"raw": 8, "layers": 1}
    assert readouts(page, "convex-hull")["output"] == PROSE["convex.cat8"]
    press(page, knob, "ArrowDown")
    assert pick(readouts(page, "convex-hull"), f21_expect(7.9)) == f21_expect(7.9)
    assert page.get_attribute(knob, "aria-valuetext") == "7.90"


def test_F21_a_finger_drags_the_score_too(browser, site_url):
    watched = open_page(browser, site_url + "en/", width=390, has_touch=True)
    page = watched.page
    try:
        page.locator("#convex-hull .handle").evaluate("e => e.scrollIntoView({block: 'center'})")
        knob = page.locator("#convex-hull .handle .knob").bounding_box()
        x, y = knob["x"] + knob["width"] / 2, knob["y"] + knob["height"] / 2
        cdp = page.context.new_cdp_session(page)
        cdp.send(
            "Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]}
        )
        for k in range(1, 9):
            cdp.send(
                "Input.dispatchTouchEvent",
                {"type": "touchMove", "touchPoints": [{"x": x, "y": y - 40 * k}]},
            )
        cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
        next_frame(page)
        raw = state(page, "convex-hull")["raw"]
        assert raw == F21_TOP, "the finger's drag did not reach the top of the track"
        expected = f21_expect(raw)
        assert pick(readouts(page, "convex-hull"), expected) == expected
        assert watched.errors == []
    finally:
        page.context.close()


# -- shuffle: the reading order shuffled ----------------------------------------------------------


def test_F22_shuffling_reorders_the_bars_and_leaves_the_output(page):
    click(page, "#shuffle button[name=reset]")
    out, w = OPEN["out"][IT], OPEN["W"][IT]
    seen = [list(range(N))]
    for _ in range(6):
        click(page, "#shuffle button[name=shuffle]")
        order = state(page, "shuffle")["order"]
        assert sorted(order) == list(range(N))
        assert order != seen[-1], "shuffle left the order as it was"
        seen.append(order)
        r = readouts(page, "shuffle")
        assert r["output"] == PROSE["output.it"]
        assert r["moved"] == "0", "float rounding printed as a move"
        exact = page.evaluate(
            "JSON.parse(document.querySelector('#shuffle [data-readout=output]').dataset.exact)"
        )
        np.testing.assert_allclose(exact, out, rtol=0, atol=1e-12)
        # the bars stand in reading order, left to right
        page.wait_for_timeout(600)  # the slide
        xs = page.evaluate(
            """() => Object.fromEntries([...document.querySelectorAll('#shuffle .bars .slot')]
                 .map(g => [g.querySelector('.bar-label').textContent,
                            g.getBoundingClientRect().x]))"""
        )
        assert sorted(xs, key=xs.get) == [TOKENS[j] for j in order]
        # each bar still prints its own weight, and no two numbers overlap
        boxes = page.evaluate(
            """() => [...document.querySelectorAll('#shuffle .bars .bar-value')]
                 .map(t => { const b = t.getBoundingClientRect(); return [b.left, b.right]; })"""
        )
        boxes.sort()
        assert all(a[1] <= b[0] for a, b in itertools.pairwise(boxes)), boxes
        for j, token in enumerate(TOKENS):
            assert r[f"bar.{token}"] == fixed(w[j])
    click(page, "#shuffle button[name=reset]")
    assert state(page, "shuffle") == {"order": list(range(N))}
    assert readouts(page, "shuffle")["moved"] == "0"


def test_F22_sums_in_the_shuffled_order(page):
    """The figure really adds in the order it shows: its running sums follow that order."""
    order = [5, 2, 0, 4, 1, 3]
    set_state(page, "shuffle", {"order": order})
    page.wait_for_timeout(600)  # the path's ease
    tips = page.evaluate(
        """() => [...document.querySelectorAll('#shuffle .arrow.term line')]
             .map(l => [Number(l.getAttribute('x1')), Number(l.getAttribute('y1'))])"""
    )
    frame = page.evaluate("JSON.parse(document.querySelector('#shuffle svg.plane').dataset.frame)")
    w, V = OPEN["W"][IT], OPEN["V"]
    partial = np.cumsum([w[j] * V[j] for j in order], axis=0)
    # each step starts where the previous ones ended, in the plane's own frame
    starts = [np.zeros(2), *partial[:-1]]
    unit = frame["unit"]
    for (px, py), at in zip(tips, starts, strict=True):
        assert math.isclose(px, (at[0] - frame["x0"]) * unit, abs_tol=1e-6)
        assert math.isclose(py, (frame["y1"] - at[1]) * unit, abs_tol=1e-6)


# -- context-cost: the cost ------------------------------------------------------------------------


def test_cost_js_matches_cost_py(page):
    lengths = [1, 2, 3, 7, 16, 100, 768, 1000, 1024, 1536, 4096, 50_000, 131_072, 2**20]
    models = [cost.GPT2_SMALL, cost.Model(d_model=512, layers=6, heads=8, bytes_per_number=4)]
    got = page.evaluate(
        """async ([lengths, models]) => {
             const m = await import(new URL('../static/js/cost.js', location.href));
             return models.map(([dModel, layers, heads, bytesPerNumber]) => {
               const model = {dModel, layers, heads, bytesPerNumber};
               return {
                 dHead: m.dHead(model), until: m.projectionsDominateUntil(model),
                 rows: lengths.map(n => [m.scoreBytes(n, model), m.allHeadsScoreBytes(n, model),
                   m.tokenBytes(n, model), m.headMacs(n, m.dHead(model)),
                   m.projectionMacs(n, model), m.layerScoreMacs(n, model),
                   m.dotProducts(n), m.causalDiscarded(n), m.outputBytes(n, model)]),
               };
             });
           }""",
        [lengths, [[m.d_model, m.layers, m.heads, m.bytes_per_number] for m in models]],
    )
    for model, result in zip(models, got, strict=True):
        assert result["dHead"] == model.d_head
        assert result["until"] == cost.projections_dominate_until(model)
        for n, row in zip(lengths, result["rows"], strict=True):
            assert row == [
                cost.score_bytes(n, model),
                cost.all_heads_score_bytes(n, model),
                cost.token_bytes(n, model),
                cost.head_macs(n, model.d_head),
                cost.projection_macs(n, model),
                cost.layer_score_macs(n, model),
                cost.dot_products(n),
                cost.causal_discarded(n),
                cost.output_bytes(n, model),
            ], (n, model)
    defaults = page.evaluate(
        """async () => { const m = await import(new URL('../static/js/cost.js', location.href));
             return [m.GPT2_SMALL, m.scoreBytes(1024)]; }"""
    )
    gpt2 = cost.GPT2_SMALL
    assert defaults[0] == {
        "dModel": gpt2.d_model,
        "layers": gpt2.layers,
        "heads": gpt2.heads,
        "bytesPerNumber": gpt2.bytes_per_number,
    }
    assert defaults[1] == cost.score_bytes(1024)


def test_numbers_js_rounds_halfway_values_to_even_as_python_does(page):
    values = [2.25, 0.125, 0.15, 2.675, -2.25, 0.5, 1.5, 2.5, 10.5, 9.95, 1 / 3, 1e-7, 0.0]
    got = page.evaluate(
        """async (values) => {
             const m = await import(new URL('../static/js/kit/format.js', location.href));
             return values.map(x => [m.fixed(x, 1), m.fixed(x, 2), m.fixed(x, 0),
                                     m.scientific(x * 1e9, 2)]);
           }""",
        values,
    )
    for x, row in zip(values, got, strict=True):
        assert row == [fixed(x, 1), fixed(x, 2), fixed(x, 0), scientific(x * 1e9, 2)], x
    sizes = [2_359_296, 2**21, 3 * 2**19, 1536 * 1024 * 5, 1023, 1024, 73_728, 5 * 2**39]
    got = page.evaluate(
        """async (sizes) => {
             const m = await import(new URL('../static/js/kit/format.js', location.href));
             return sizes.map(b => [m.size(b), m.size(b, 0)]);
           }""",
        sizes,
    )
    assert got == [[size(b), size(b, 0)] for b in sizes]


def f23_expect(n: int) -> dict[str, str]:
    ratio = cost.score_bytes(n) / cost.token_bytes(n)
    return {
        "head": size(cost.score_bytes(n)),
        "ratio": (grouped(round(ratio)) if ratio >= 10 else fixed(ratio, 2)) + "×",
    }


def test_F23_the_dot_reaches_1024_and_131072_with_the_prose_numbers(page):
    slider = "#context-cost .handle[role=slider]"  # the dot on one head's line
    press(page, slider, "Home")
    assert state(page, "context-cost") == {"n": 16}
    assert readouts(page, "context-cost") == f23_expect(16)
    press(page, slider, "ArrowRight", times=24)  # quarter octaves: 2⁴ → 2¹⁰
    r = readouts(page, "context-cost")
    assert r == f23_expect(1024)
    assert r["head"] == PROSE["cost.n1024.head"] == "2.0 MiB"
    assert page.get_attribute(slider, "aria-valuetext") == "1,024"
    press(page, slider, "ArrowRight")
    assert state(page, "context-cost") == {"n": round(2**10.25)}
    assert readouts(page, "context-cost") == f23_expect(round(2**10.25))
    press(page, slider, "End")
    r = readouts(page, "context-cost")
    assert r == f23_expect(131_072)
    assert r["head"] == PROSE["cost.n131072.head"] == "32.0 GiB"
    assert r["ratio"] == PROSE["cost.n131072.ratio"] + "×" == "171×"
    assert page.get_attribute(slider, "aria-valuetext") == "131,072"


def test_F23_second_chart_marks_the_crossover_and_a_thousand_tokens(page):
    chart = "#context-cost svg.ops"
    cross = cost.projections_dominate_until()
    assert int(page.get_attribute(chart, "data-crossover")) == cross
    # at n = 2·d_model the projections and the n² part cost exactly the same
    assert cost.projection_macs(cross) == cost.layer_score_macs(cross)
    assert cost.projection_macs(cross - 1) > cost.layer_score_macs(cross - 1)
    assert cost.projection_macs(cross + 1) < cost.layer_score_macs(cross + 1)
    labels = page.locator(f"{chart} text.line-label").all_text_contents()
    assert f"crossover n = {PROSE['cost.crossover']}" in labels
    assert PROSE["cost.crossover"] == "1,536"
    assert f"{PROSE['tokens.n1000']} → {PROSE['counts.n1000']}" in labels
    assert PROSE["counts.n1000"] == grouped(cost.dot_products(1000)) == "1,000,000"
    # the marked crossing sits where both lines meet, on the shared context-length axis
    where = "c => [Number(c.getAttribute('cx')), Number(c.getAttribute('cy'))]"
    centre = page.eval_on_selector(f"{chart} circle.crossing", where)
    set_state(page, "context-cost", {"n": cross})
    dots = page.eval_on_selector_all(f"{chart} circle.cost-dot", f"cs => cs.map({where})")
    squared, projections = dots[0], dots[1]
    assert squared == pytest.approx(centre, abs=1e-6)
    assert projections == pytest.approx(centre, abs=1e-6)


# 96, 1,536, 3,125 and 8,064 land exactly halfway (0.125×, 2.25 MiB, 1.25 × 10⁹, 10.5×)
@pytest.mark.parametrize("n", [17, 96, 100, 768, 1000, 1536, 3125, 5000, 8064, 65_536, 100_000])
def test_F23_readouts_match_cost_py_at_any_length(page, n):
    set_state(page, "context-cost", {"n": n})
    assert readouts(page, "context-cost") == f23_expect(n)


def test_F23_writes_no_line_inside_and_the_charts_take_the_press(page):
    """Labels and one read-out line only: no note, no slider; a press on the second chart
    brings the length there, on the axis the two charts share."""
    assert page.locator("#context-cost .figure-note, #context-cost input").count() == 0
    box = page.locator("#context-cost svg.ops").bounding_box()
    assert box is not None
    page.locator("#context-cost svg.ops").scroll_into_view_if_needed()
    box = page.locator("#context-cost svg.ops").bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + box["width"] * 0.2, box["y"] + box["height"] * 0.5)
    next_frame(page)
    n = state(page, "context-cost")["n"]
    assert 16 < n < 1024  # the left of the axis: a short context
    assert readouts(page, "context-cost") == f23_expect(n)


# -- attention-map: the whole map ------------------------------------------------------------------


def test_F25_switching_the_mask_fills_the_triangle(page):
    set_state(page, "attention-map", {"causal": True})
    for causal in (True, False):
        W = (CAUSAL if causal else OPEN)["W"]
        r = readouts(page, "attention-map")
        # row it prints its weights; every other cell shows its number under the pointer only
        for j, k in enumerate(TOKENS):
            assert r[f"W.it.{k}"] == cell_weight(W[IT, j]), (causal, k)
        assert not any(name.startswith("W.ran.") for name in r)
        page.hover("#attention-map .cell[data-row=ran][data-column=cat]")
        assert page.text_content("#attention-map .pointer-value") == cell_weight(W[N - 1, CAT])
        assert r["masked"] == str(int(causal_mask(N).sum()) if causal else 0)
        assert page.locator("#attention-map .cell.masked").count() == (15 if causal else 0)
        # what the mask leaves is written in each masked cell's small box: an exact 0
        masked_texts = page.eval_on_selector_all(
            "#attention-map .cell.masked .cell-value", "els => els.map(e => e.textContent)"
        )
        assert masked_texts == (["0"] * 15 if causal else [])
        if causal:  # the prose's weights, each printed in its cell
            assert r["W.it.cat"] == claim("causal.it.cat") == "0.34"
            assert r["W.it.ran"] == "0"
            click(page, "#attention-map label.switch")
        else:
            assert r["W.it.cat"] == claim("softmax.it.cat") == "0.30"
            assert r["W.it.ran"] == fixed(OPEN["W"][IT, RAN])
    press(page, "#attention-map input[name=causal]", "Space")
    assert state(page, "attention-map") == {"causal": True}


# -- silent-bugs: four silent bugs -----------------------------------------------------------------


def buggy(switches: dict[str, bool], order=None, masked: bool = True) -> dict[str, np.ndarray]:
    """silent-bugs's head with the bugs its switches turn on (bugs.py)."""
    return buggy_head(HEAD, SilentBugs.from_switches(switches), order, masked)


def f25_expect(bugs: dict[str, bool]) -> dict[str, str]:
    run = buggy(bugs)
    W = run["W"]
    future = causal_mask(N)
    leaked = float(W[future].sum())
    reverse = np.arange(N)[::-1]
    plain = buggy(bugs, masked=False)["out"]
    shuffled = buggy(bugs, order=reverse, masked=False)["out"]
    change = float(np.abs(shuffled - plain[reverse]).max())
    ratio = key_length_ratio(run["K"])
    verdict = {True: "✓", False: "✗"}
    expect = {
        "check.mask": verdict[leaked == 0],
        "check.mask.value": "0" if leaked == 0 else fixed(leaked, 3),
        "check.positions": verdict[change > 1e-9],
        # no float noise: a shuffle that moves nothing reads "unchanged", never 0.00 or 1e-16
        "check.positions.value": fixed(change) if change > 1e-9 else "unchanged",
        "check.sqrt": verdict[not bugs["noSqrt"]],
        "check.keys": verdict[ratio < KEY_LIMIT],
        "check.keys.value": fixed(ratio),
    }
    for i, q in enumerate(TOKENS):
        for j, k in enumerate(TOKENS):
            # row it prints its weights; a masked cell with no weight is a dashed box holding
            # its 0, a leak prints its weight; the rest show theirs under the pointer only
            if i == IT or j > i:
                expect[f"W.{q}.{k}"] = cell_weight(W[i, j])
    failing = sum(v == verdict[False] for k, v in expect.items() if k.count(".") == 1)
    expect["failing"] = f"{failing} / 4"
    return expect


def check_f25(page: Page, bugs: dict[str, bool]) -> None:
    assert state(page, "silent-bugs") == bugs
    r = readouts(page, "silent-bugs")
    expected = f25_expect(bugs)
    assert pick(r, expected) == expected
    leaks = page.locator("#silent-bugs .cell.leak").count()
    assert leaks == (int(causal_mask(N).sum()) if bugs["multiply"] else 0)
    raw = spread_at_init(INIT_WIDTH)  # numpy's draw, at a GPT-2 small head's width of 64
    assert r["check.sqrt.value"] == fixed(raw if bugs["noSqrt"] else raw / math.sqrt(INIT_WIDTH))
    # the row check everyone runs passes in every state: each row's Σ on the map reads 1
    assert [r[f"sum.{q}"] for q in TOKENS] == ["1"] * N


BUGS = ("multiply", "noPositions", "noSqrt", "longKey")


def test_F26_starts_as_the_toy_head_with_no_positions(page):
    set_state(page, "silent-bugs", {"multiply": False, "noPositions": True, "noSqrt": False})
    set_state(page, "silent-bugs", {"longKey": False})
    start = {"multiply": False, "noPositions": True, "noSqrt": False, "longKey": False}
    check_f25(page, start)
    W = buggy(start)["W"]
    np.testing.assert_allclose(W, CAUSAL["W"], atol=1e-15)  # the toy head as it is
    r = readouts(page, "silent-bugs")
    assert r["check.positions"] == "✗"  # the toy has no positions: the check says so
    assert r["W.it.cat"] == claim("causal.it.cat")


@pytest.mark.parametrize("bug", BUGS)
def test_F26_each_switch_changes_the_map_and_its_assertion(page, bug):
    start = {"multiply": False, "noPositions": True, "noSqrt": False, "longKey": False}
    set_state(page, "silent-bugs", start)
    before = readouts(page, "silent-bugs")
    click(page, f"#silent-bugs label.switch:has(input[name={bug}])")
    flipped = {**start, bug: not start[bug]}
    check_f25(page, flipped)
    after = readouts(page, "silent-bugs")
    changed = [k for k in before if k.startswith("W.") and before[k] != after[k]]
    assert changed, f"{bug} left the map as it was"
    name = {
        "multiply": "mask",
        "noPositions": "positions",
        "noSqrt": "sqrt",
        "longKey": "keys",
    }[bug]
    assert before[f"check.{name}"] != after[f"check.{name}"], f"{bug}'s assertion did not notice"
    if bug == "multiply":
        leaked = float(MULTIPLY["W"][np.triu_indices(N, 1)].sum())
        assert after["check.mask.value"] == fixed(leaked, 3)
        assert after["W.it.ran"] == cell_weight(MULTIPLY["W"][IT, RAN])
    press(page, f"#silent-bugs input[name={bug}]", "Space")
    check_f25(page, start)


def test_F26_all_bugs_at_once(page):
    everything = dict.fromkeys(BUGS, True)
    set_state(page, "silent-bugs", everything)
    check_f25(page, everything)
    fixed_all = {**dict.fromkeys(BUGS, False)}
    set_state(page, "silent-bugs", fixed_all)
    check_f25(page, fixed_all)
    assert readouts(page, "silent-bugs")["failing"] == "0 / 4"
