"""fill-matrix–divisor driven through their real controls, read-outs checked against the Python
model."""

from __future__ import annotations

import math

import numpy as np
import pytest
from playwright.sync_api import Page

from selfattn.attention import softmax
from selfattn.claims import BY_ID, width_mix
from selfattn.head import load_head
from selfattn.numbers import fixed, grouped, scientific

from .drive import SLUGS, click, next_frame, number, press, readouts, set_state, state

HEAD = load_head()
TOKENS = HEAD.tokens
N = len(TOKENS)
S = HEAD.run()["S"]  # (n, n) scaled scores: the matrix fill-matrix–transpose draw
W = HEAD.run()["W"]
IT, CAT, ATE = HEAD.index("it"), HEAD.index("cat"), HEAD.index("ate")
WIDTHS = [2**k for k in range(9)]


def weight_text(w: float, decimals: int = 3) -> str:
    """How the page prints a weight: fixed decimals, scientific where those would show 0."""
    return scientific(w) if 0 < w < 0.5 * 10.0**-decimals else fixed(w, decimals)


def bar_weight(w: float) -> str:
    """How a weight prints at a bar's end, where there is no room for 10⁻¹⁶: never 0."""
    return weight_text(w) if w >= 0.0005 else "<0.001"


def bars(name: str, values, text) -> dict[str, str]:
    """The numbers a row of bars prints, by data-readout name (NAME.token)."""
    return {f"{name}.{key}": text(v) for key, v in zip(TOKENS, values, strict=True)}


def side(page: Page, figure_id: str) -> dict[str, str]:
    """A matrix figure's read-outs without its 36 cell numbers (S.row.column)."""
    return {k: v for k, v in readouts(page, figure_id).items() if not k.startswith("S.")}


def cells(page: Page, figure_id: str) -> dict[tuple[str, str], str]:
    """The numbers printed in a matrix's cells, (row, column) → text, blanks left out."""
    got = readouts(page, figure_id).items()
    return {tuple(k.split(".")[1:]): v for k, v in got if k.startswith("S.") and v}


def top_bar(page: Page, figure_id: str) -> str:
    """The top weight, as the tallest of a row of weight bars (w.token) prints it."""
    return max((v for k, v in readouts(page, figure_id).items() if k.startswith("w.")), key=number)


def claim(page: Page, claim_id: str) -> str:
    """The prose's number for a claim, as the build printed it."""
    return page.locator(f'[data-claim="{claim_id}"]').first.text_content()


def row_it_with_cat(score: float) -> np.ndarray:
    """Row `it` of S with cat's score overwritten, through softmax (give-way, never-zero)."""
    row = S[IT].copy()
    row[CAT] = score
    return softmax(row)


def top_and_gradient(w: np.ndarray) -> tuple[float, float]:
    """The largest weight and w(1 − w), with 1 − w summed from the rest as the page does."""
    top = int(np.argmax(w))
    return float(w[top]), float(w[top] * (w.sum() - w[top]))


def axis_in_client(page: Page, chart: str, lines: str, texts: str, count: int, vertical: bool):
    """(value, client pixel) pairs read off a chart's own tick lines and their labels."""
    return page.evaluate(
        """([chart, lines, texts, count, vertical]) => {
            const svg = document.querySelector(chart);
            const ls = [...svg.querySelectorAll(lines)].slice(0, count);
            const ts = [...svg.querySelectorAll(texts)].slice(0, count);
            return ls.map((l, i) => {
                const r = l.getBoundingClientRect();
                return [Number(ts[i].textContent.replace('\u2212', '-')), vertical ? r.y : r.x];
            });
        }""",
        [chart, lines, texts, count, vertical],
    )


def pixel_for(pairs: list, value: float) -> float:
    values, pixels = zip(*pairs, strict=True)
    slope = (pixels[-1] - pixels[0]) / (values[-1] - values[0])
    return pixels[0] + (value - values[0]) * slope


def drag_handle(page: Page, handle: str, x: float | None = None, y: float | None = None) -> None:
    """Press the mouse on a handle, move it to client (x, y) in steps, release."""
    box = page.locator(f"{handle} .knob").bounding_box()
    assert box is not None
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(cx, cy)
    page.mouse.down()
    page.mouse.move(cx if x is None else x, cy if y is None else y, steps=8)
    page.mouse.up()
    next_frame(page)


def centre(page: Page, selector: str) -> None:
    """Scroll so a figure sits mid-viewport, leaving room to drag past its ends."""
    page.locator(selector).evaluate("e => e.scrollIntoView({block: 'center'})")


# -- fill-matrix: fill the matrix a row at a time ------------------------------------------


def square_sides(page: Page, figure_id: str) -> dict[tuple[str, str], tuple[float, str]]:
    """Every drawn square: (query, key) → (side, 'pos'|'neg'), empty cells left out."""
    drawn = page.evaluate(
        """id => [...document.querySelectorAll(`#${id} .cell`)]
            .filter(c => !c.classList.contains('empty'))
            .map(c => [c.dataset.row, c.dataset.column,
                       Number(c.querySelector('.square').getAttribute('width')),
                       c.classList.contains('pos') ? 'pos' : 'neg'])""",
        figure_id,
    )
    return {(q, k): (side, sign) for q, k, side, sign in drawn}


def reference_side(page: Page, figure_id: str) -> float:
    """The side of the reference square under a grid (the square a value of 1 gets)."""
    side = page.locator(f"#{figure_id} .reference-square").get_attribute("width")
    assert page.locator(f"#{figure_id} .reference-text").text_content().endswith("1.00")
    return float(side)


def test_f08_button_fills_one_row_at_a_time_and_counts_dot_products(en_at_start):
    page = en_at_start.page
    page.emulate_media(reduced_motion="reduce")  # squares land at once
    button = page.locator("#fill-matrix button[name=fill]")
    # at rest the first row is in
    assert side(page, "fill-matrix") == {"dots": grouped(N)}
    assert {q for q, _ in square_sides(page, "fill-matrix")} == {TOKENS[0]}
    for filled in range(1, N + 1):
        if filled > 1:
            button.click()
            next_frame(page)
        assert side(page, "fill-matrix") == {"dots": grouped(filled * N)}
        squares = square_sides(page, "fill-matrix")
        assert {q for q, _ in squares} == set(TOKENS[:filled])
        # the row just filled prints its numbers; the rows before it are read by area
        row = TOKENS[filled - 1]
        assert cells(page, "fill-matrix") == {
            (row, k): fixed(S[filled - 1, j]) for j, k in enumerate(TOKENS)
        }
    assert side(page, "fill-matrix")["dots"] == "36" == claim(page, "counts.dot")
    # area ∝ |score|, read against the reference square; the sign is the shape (filled or hollow)
    unit = reference_side(page, "fill-matrix") ** 2
    for (q, k), (length, sign) in square_sides(page, "fill-matrix").items():
        score = S[HEAD.index(q), HEAD.index(k)]
        assert sign == ("pos" if score >= 0 else "neg")
        assert max(length, 1.5) == pytest.approx(max(1.5, math.sqrt(abs(score) * unit)), rel=1e-6)
    button.click()  # a full matrix starts again
    next_frame(page)
    assert state(page, "fill-matrix") == {"rows": 0}


def test_f08_clicking_a_row_fills_the_matrix_down_to_it(en_at_start):
    page = en_at_start.page
    click(page, "#fill-matrix .cell[data-row=and][data-column=cat]")
    assert state(page, "fill-matrix") == {"rows": TOKENS.index("and") + 1}
    click(page, "#fill-matrix .grid-label.row[data-token=the]")
    assert state(page, "fill-matrix") == {"rows": 1}


def test_f08_keyboard_fills_with_enter_and_space(en_at_start):
    page = en_at_start.page
    press(page, "#fill-matrix button[name=fill]", "Enter", 2)
    press(page, "#fill-matrix button[name=fill]", " ")
    assert state(page, "fill-matrix") == {"rows": 4}
    assert side(page, "fill-matrix")["dots"] == "24"


# what a discrete change moves, read in the frame it is drawn and after the ease (280 ms)
EASED = {
    "fill-matrix": (
        {"rows": 2},
        "#fill-matrix .cell[data-row=cat][data-column=cat] .square",
        "width",
    ),
    "walk-rows": ({"row": 4}, "#walk-rows svg.grid .wash", "y"),
    "transpose": (
        {"transposed": True},
        "#transpose .cell[data-row=cat][data-column=ate]",
        "transform",
    ),
}


@pytest.mark.parametrize("figure_id", EASED)
def test_discrete_changes_ease_from_where_they_were(en_at_start, figure_id):
    page = en_at_start.page
    partial, selector, attribute = EASED[figure_id]
    before = page.locator(selector).get_attribute(attribute)
    # the ease starts from the old geometry in the very frame the new state is drawn
    started = page.evaluate(
        """([id, partial, selector, attribute]) => new Promise((done) => {
            document.getElementById(id).figure.set(partial);
            const read = () => document.querySelector(selector).getAttribute(attribute);
            requestAnimationFrame(() => done(read()));
        })""",
        [figure_id, partial, selector, attribute],
    )
    assert started == before
    page.wait_for_timeout(600)
    assert page.locator(selector).get_attribute(attribute) != before


# -- walk-rows: walk down the rows -----------------------------------------------------------


def test_f09_steps_down_every_row(en_at_start):
    page = en_at_start.page
    spreads = {}
    for step in range(N):
        row = state(page, "walk-rows")["row"]
        assert row == step
        got = side(page, "walk-rows")
        scores = S[row]
        top = TOKENS[int(np.argmax(scores))]
        assert got == {
            "row": TOKENS[row],
            "top": top,
            "spread": fixed(scores.max() - scores.min()),
        }
        spreads[TOKENS[row]] = scores.max() - scores.min()
        assert cells(page, "walk-rows") == {
            (TOKENS[row], k): fixed(s) for k, s in zip(TOKENS, scores, strict=True)
        }
        if TOKENS[row] == "it":  # the top score is the one printed in its cell
            assert (top, cells(page, "walk-rows")[("it", top)]) == (
                "cat",
                claim(page, "matrix.it.cat"),
            )
        click(page, "#walk-rows .step-next")
    assert state(page, "walk-rows")["row"] == 0  # past the last row it wraps to the first
    assert min(spreads, key=spreads.get) == "the"  # row `the` is the flat one


def test_f09_clicking_a_row_walks_to_it(en_at_start):
    page = en_at_start.page
    click(page, "#walk-rows .cell[data-row=it][data-column=ran]")
    assert state(page, "walk-rows")["row"] == IT
    assert side(page, "walk-rows")["top"] == "cat"


def test_f09_previous_row_by_keyboard(en_at_start):
    page = en_at_start.page
    press(page, "#walk-rows .step-prev", "Enter", 2)
    assert state(page, "walk-rows")["row"] == N - 2
    assert side(page, "walk-rows")["row"] == TOKENS[N - 2]


# -- transpose: transpose ----------------------------------------------------------------------


def cell_centre(page: Page, query: str, key: str) -> tuple[float, float]:
    """Where a cell's slot sits inside the matrix, in pixels from the matrix's corner."""
    box = page.locator(
        f'#transpose .cell[data-row="{query}"][data-column="{key}"] .slot'
    ).bounding_box()
    frame = page.locator("#transpose svg.grid").bounding_box()
    assert box is not None and frame is not None
    return (
        round(box["x"] + box["width"] / 2 - frame["x"], 1),
        round(box["y"] + box["height"] / 2 - frame["y"], 1),
    )


def test_f10_transpose_swaps_the_two_directions(en_at_start):
    page = en_at_start.page
    page.emulate_media(reduced_motion="reduce")  # no transition: cells land at once
    button = page.locator("#transpose button[name=transpose]")
    assert side(page, "transpose") == {"mirror": "no: S ≠ Sᵀ"}
    # only the two cells the prose compares print their numbers
    assert cells(page, "transpose") == {
        ("cat", "ate"): fixed(S[CAT, ATE]) == claim(page, "asym.cat.ate") and "0.51",
        ("ate", "cat"): fixed(S[ATE, CAT]) == claim(page, "asym.ate.cat") and "−0.32",
    }
    before = {pair: cell_centre(page, *pair) for pair in (("cat", "ate"), ("ate", "cat"))}
    button.click()
    next_frame(page)
    assert button.get_attribute("aria-pressed") == "true"
    # each number travels with its square, which lands where the other was
    assert cells(page, "transpose") == {("cat", "ate"): "0.51", ("ate", "cat"): "−0.32"}
    # the squares themselves moved: each now sits where the other was
    assert cell_centre(page, "cat", "ate") == before[("ate", "cat")]
    assert cell_centre(page, "ate", "cat") == before[("cat", "ate")]
    press(page, "#transpose button[name=transpose]", " ")
    assert state(page, "transpose") == {"transposed": False}
    assert cells(page, "transpose")[("cat", "ate")] == "0.51"


# -- staircase: softmax's staircase ---------------------------------------------------------------


def staircase_end_and_edge(page: Page) -> tuple[float, float]:
    """Client y of the staircase's last tread and of the chart's top edge."""
    return tuple(
        page.evaluate(
            """() => {
                const stairs = document.querySelector('#staircase .staircase[visibility=visible]');
                const svg = stairs.ownerSVGElement;
                const box = stairs.getBBox();
                return [box.y, Number(svg.querySelector('.top-edge').getAttribute('y1'))];
            }"""
        )
    )


def test_f11_every_row_sums_to_one_on_the_top_edge(en_at_start):
    page = en_at_start.page
    for row, token in enumerate(TOKENS):
        set_state(page, "staircase", {"row": token})
        next_frame(page)
        assert state(page, "staircase")["row"] == row
        got = readouts(page, "staircase")
        expect = bars("w", W[row], lambda w: weight_text(w, 2)) | bars("e", np.exp(S[row]), fixed)
        expect |= {"sum-exp": fixed(np.exp(S[row]).sum()), "total": "1.000", "row": token}
        assert got == expect
        top, edge = staircase_end_and_edge(page)
        assert top == pytest.approx(edge, abs=1e-6)


def test_f11_row_it_claims_and_arrow_keys(en_at_start):
    page = en_at_start.page
    got = readouts(page, "staircase")
    assert got["w.cat"] == claim(page, "softmax.it.cat") == weight_text(W[IT, CAT], 2)
    assert got["w.the"] == claim(page, "softmax.it.the") == weight_text(W[IT, 0], 2)
    click(page, "#staircase button[aria-label='Next']")
    assert state(page, "staircase")["row"] == IT + 1
    assert readouts(page, "staircase")["w.ran"] == weight_text(W[IT + 1, IT + 1], 2)


def test_f11_shifting_every_score_by_c_moves_no_weight(en_at_start):
    page = en_at_start.page
    figure = page.locator("#staircase")
    set_state(page, "staircase", {"row": "it"})
    next_frame(page)
    weights = bars("w", W[IT], lambda w: weight_text(w, 2))
    shifts = {"0": 0.0, "−max s": -S[IT].max(), "+10": 10.0}
    for name, c in shifts.items():
        figure.get_by_role("radio", name=name, exact=True).check()
        next_frame(page)
        got = readouts(page, "staircase")
        # the same weights to the last printed digit, whatever c
        assert {k: got[k] for k in weights} == weights, name
        assert got["total"] == "1.000", name
        assert got["sum-exp"] == (lambda e: scientific(e, 1) if e >= 1000 else fixed(e))(
            np.exp(S[IT] + c).sum()
        ), name
    # the chip is the stable recipe itself: no switch repeats it
    assert figure.locator("input[role=switch]").count() == 0
    figure.get_by_role("radio", name="−max s", exact=True).check()
    next_frame(page)
    # c = −max s puts the top score at 0: its exponential is e⁰ = 1, naive or not
    assert fixed(-S[IT].max()) == "−" + claim(page, "matrix.it.cat")
    assert readouts(page, "staircase")["e.cat"] == "1.00"


def test_f11_a_huge_shift_overflows_exp_but_minus_the_max_never_does(en_at_start):
    page = en_at_start.page
    figure = page.locator("#staircase")
    set_state(page, "staircase", {"row": "it"})
    huge = claim(page, "softmax.shift.huge")
    assert huge == grouped(1000)
    figure.get_by_role("radio", name=f"+{huge}", exact=True).check()
    next_frame(page)
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(S[IT] + 1000.0)
        assert np.isinf(e).all() and np.isnan(e / e.sum()).all()  # what the naive recipe gives
    assert claim(page, "softmax.overflow") == fixed(math.log(np.finfo(float).max)) == "709.78"
    assert S[IT].max() + 1000.0 > math.log(np.finfo(float).max)
    got = readouts(page, "staircase")
    assert got["sum-exp"] == "∞" and got["total"] == "∞/∞"
    assert all(got[f"e.{t}"] == "∞" for t in TOKENS)
    assert all(got[f"w.{t}"] == "∞/∞" for t in TOKENS)
    assert "overflow" in (figure.get_attribute("class") or "")
    figure.get_by_role("radio", name="−max s", exact=True).check()  # nothing overflows
    next_frame(page)
    got = readouts(page, "staircase")
    assert {k: got[k] for k in bars("w", W[IT], fixed)} == bars(
        "w", W[IT], lambda w: weight_text(w, 2)
    )
    assert got["total"] == "1.000"
    assert "overflow" not in (figure.get_attribute("class") or "")


# -- give-way: drag cat's score; the rest give way -----------------------------------------------


def f12_expected(score: float) -> dict[str, str]:
    w = row_it_with_cat(score)
    scores = S[IT].copy()
    scores[CAT] = score
    return bars("w", w, bar_weight) | bars("s", scores, fixed) | {"sum": fixed(w.sum(), 3)}


def test_f12_drag_cats_score_and_the_others_give_way(en_at_start):
    page = en_at_start.page
    chart = "#give-way svg.bars"
    centre(page, "#give-way")
    assert readouts(page, "give-way") == f12_expected(S[IT, CAT])
    ruler = axis_in_client(page, chart, "line.gridline", "text.tick", 3, vertical=True)
    previous = (S[IT, CAT], readouts(page, "give-way"))
    for target in (3.0, 1.0, 0.5):
        drag_handle(page, "#give-way .handle", y=pixel_for(ruler, target))
        score = state(page, "give-way")["score"]
        assert score == pytest.approx(target, abs=0.1)  # the knob lands under the pointer
        got = readouts(page, "give-way")
        assert got == f12_expected(score)
        assert got["sum"] == "1.000"
        # cat up, every other weight down; cat down, every other weight up (the model's
        # weights, since a bar prints three decimals)
        up = score > previous[0]
        w, before = row_it_with_cat(score), row_it_with_cat(previous[0])
        for j, name in enumerate(TOKENS):
            if name != "cat":
                assert (w[j] < before[j]) == up, name
        previous = (score, got)
    drag_handle(page, "#give-way .handle", y=pixel_for(ruler, 6))  # past the top: held at 4
    assert state(page, "give-way")["score"] == 4
    assert readouts(page, "give-way") == f12_expected(4)


def test_f12_keyboard_steps_and_ends(en_at_start):
    page = en_at_start.page
    handle = "#give-way .handle"
    press(page, handle, "ArrowUp", 3)
    assert state(page, "give-way")["score"] == pytest.approx(1.5)  # snapped to the 0.1 grid
    assert readouts(page, "give-way") == f12_expected(1.5)
    press(page, handle, "End")
    assert readouts(page, "give-way") == f12_expected(4)
    press(page, handle, "Home")
    assert state(page, "give-way")["score"] == 0.5
    assert readouts(page, "give-way") == f12_expected(0.5)
    assert page.locator(handle).get_attribute("aria-valuetext") == "0.50"


def test_f12_sum_stays_one_everywhere(en_at_start):
    page = en_at_start.page
    for score in np.arange(0.5, 4.01, 0.25):
        set_state(page, "give-way", {"score": float(score)})
        assert readouts(page, "give-way")["sum"] == "1.000"


# -- never-zero: push a score down to −30 ----------------------------------------------------------


def test_f13_minus_thirty_leaves_a_weight_that_is_not_zero(en_at_start):
    page = en_at_start.page
    press(page, "#never-zero .handle", "Home")
    assert state(page, "never-zero")["score"] == -30
    w = row_it_with_cat(-30.0)
    got = readouts(page, "never-zero")
    assert got == {"w.cat": weight_text(w[CAT])}
    assert fixed(w.sum(), 3) == "1.000"
    assert got["w.cat"] == "1.2 × 10⁻¹⁴" == claim(page, "softmax.floor.minus30")
    press(page, "#never-zero .handle", "PageUp")
    assert state(page, "never-zero")["score"] == -25
    assert readouts(page, "never-zero")["w.cat"] == scientific(row_it_with_cat(-25.0)[CAT])
    press(page, "#never-zero .handle", "End")  # near the top the weight prints in plain decimals
    assert readouts(page, "never-zero")["w.cat"] == weight_text(row_it_with_cat(3.0)[CAT])


def test_f13_at_minus_thirty_the_linear_bar_vanishes_while_the_log_axis_still_shows_it(en_at_start):
    page = en_at_start.page
    geometry = """() => {
        const svg = document.querySelector('#never-zero svg.floor');
        const bar = svg.querySelector('rect.weight-bar');
        const dot = svg.querySelector('circle.weight-marker');
        const ticks = [...svg.querySelectorAll('text.tick')].map(t => Number(t.getAttribute('x')));
        return {bar: Number(bar.getAttribute('width')), dot: Number(dot.getAttribute('cx')),
                left: Math.min(...ticks), right: Math.max(...ticks)};
    }"""
    press(page, "#never-zero .handle", "End")
    top = page.evaluate(geometry)
    w_top = row_it_with_cat(3.0)[CAT]
    # the bar is drawn on a linear axis from 0 to 1: its width is w of the axis' length
    assert top["bar"] == pytest.approx(w_top * (top["right"] - top["left"]), rel=1e-9)
    press(page, "#never-zero .handle", "Home")
    low = page.evaluate(geometry)
    w = row_it_with_cat(-30.0)[CAT]
    assert 0 < w < 1e-13
    assert 0 < low["bar"] < 1e-9  # far under a pixel: invisible on the linear axis
    assert low["dot"] > low["left"] + 20  # tens of pixels right of the log axis' zero-less end
    assert (
        readouts(page, "never-zero")["w.cat"] == "1.2 × 10⁻¹⁴"
    )  # and the number says it is positive
    press(page, "#never-zero .handle", "End")


def test_f13_zero_is_said_to_lie_infinitely_far_on_the_log_axis_not_the_linear_one(en_at_start):
    """The note sits on the weight's log line (nearer it than the linear bar's axis, which does
    start at 0), and off the dot and its link when the weight is pushed to its left end."""
    page = en_at_start.page
    where = """() => {
        const svg = document.querySelector('#never-zero svg.floor');
        const y = (e) => { const r = e.getBoundingClientRect(); return (r.top + r.bottom) / 2; };
        const note = svg.querySelector('.zero-note').getBoundingClientRect();
        return {note: (note.top + note.bottom) / 2, left: note.left,
                log: y(svg.querySelector('circle.weight-marker')),
                bar: y(svg.querySelector('rect.weight-bar')),
                dot: svg.querySelector('circle.weight-marker').getBoundingClientRect().right};
    }"""
    for key in ("End", "Home"):
        press(page, "#never-zero .handle", key)
        got = page.evaluate(where)
        assert abs(got["note"] - got["log"]) < abs(got["note"] - got["bar"]) / 2, (key, got)
    assert got["left"] > got["dot"]  # at −30 the note starts past the dot, still pointing left
    press(page, "#never-zero .handle", "End")


def test_f13_drag_along_the_score_axis(en_at_start):
    page = en_at_start.page
    centre(page, "#never-zero")
    ruler = axis_in_client(page, "#never-zero svg.floor", "line.gridline", "text.tick", 4, False)
    drag_handle(page, "#never-zero .handle", x=pixel_for(ruler, -12.0))
    score = state(page, "never-zero")["score"]
    assert score == pytest.approx(-12.0, abs=0.2)
    w = row_it_with_cat(score)
    assert readouts(page, "never-zero") == {"w.cat": weight_text(w[CAT])}
    drag_handle(
        page, "#never-zero .handle", x=pixel_for(ruler, -45.0)
    )  # off the end: −30, not less
    assert state(page, "never-zero")["score"] == -30
    assert readouts(page, "never-zero")["w.cat"] == "1.2 × 10⁻¹⁴"


# -- spread–divisor: the width experiment ----------------------------------------------------------


def walk_widths(page: Page, figure_id: str, control: str = "input[type=range]"):
    """Yield each width from 1 to 256, reached by the width control's arrow keys (a slider
    under the picture, or a handle in it)."""
    slider = f"#{figure_id} {control}"
    press(page, slider, "Home")
    for k, width in enumerate(WIDTHS):
        if k:
            press(page, slider, "ArrowRight")
        assert state(page, figure_id)["width"] == width
        assert page.locator(slider).get_attribute("aria-valuetext") == grouped(width)
        yield width


SPREAD_DOT = ".handle[role=slider]"  # F14's width: the √d dot, dragged along its curve
WIDTH_DOT = SPREAD_DOT  # F16's: the dot on the chosen divisor's curve


def test_f14_spread_grows_as_root_width(en_at_start):
    page = en_at_start.page
    for width in walk_widths(page, "spread", SPREAD_DOT):
        assert readouts(page, "spread") == {"spread": fixed(math.sqrt(width))}
        # the dot rides the curve: at (d, √d) on the chart's own axes
        x, y = dot_on_axes(page)
        assert x == pytest.approx(width, rel=1e-3)
        assert y == pytest.approx(math.sqrt(width), rel=1e-3)
    assert readouts(page, "spread")["spread"] == "16.00"
    press(page, f"#spread {SPREAD_DOT}", "ArrowLeft", times=2)
    got = readouts(page, "spread")
    assert got["spread"] == claim(page, "spread.d64") == "8.00"
    assert dot_on_axes(page, ".dot.low")[1] == pytest.approx(1 / 8)  # ÷ d over-corrects: 1/√64
    assert dot_on_axes(page, ".dot.held") == pytest.approx((64, 1))  # ÷ √d holds it at 1
    assert page.locator(f"#spread {SPREAD_DOT}").get_attribute("aria-valuetext") == "64"
    # the dot on the curve is the one width control: no slider repeats it under the picture
    assert page.locator("#spread input").count() == 0


def dot_on_axes(page: Page, which: str = ".dot:not(.low, .held)") -> tuple[float, float]:
    """spread's dot read back through its axes' tick labels: (width, spread), both on log axes."""
    return tuple(
        page.evaluate(
            """(which) => {
                const svg = document.querySelector('#spread svg.spread');
                const dot = svg.querySelector(which);
                const ticks = [...svg.querySelectorAll('text.tick')];
                const left = ticks.filter((t) => t.classList.contains('end'));
                const bottom = ticks.filter((t) => !t.classList.contains('end'));
                const at = (t, k) => Number(t.getAttribute(k));
                // a tick reads 256 or 1/16
                const value = (t) => t.textContent.replace(',', '').split('/')
                    .reduce((a, b) => Number(a) / Number(b));
                const [b0, b1] = [bottom[0], bottom.at(-1)], [l0, l1] = [left[0], left.at(-1)];
                const cx = at(dot, 'cx'), cy = at(dot, 'cy');
                const logw = Math.log(value(b0)) + (cx - at(b0, 'x')) / (at(b1, 'x') - at(b0, 'x'))
                    * (Math.log(value(b1)) - Math.log(value(b0)));
                // a tick stands on its value (its offset from the axis is in dx, dy)
                const logs = Math.log(value(l0)) + (cy - at(l0, 'y')) / (at(l1, 'y') - at(l0, 'y'))
                    * (Math.log(value(l1)) - Math.log(value(l0)));
                return [Math.exp(logw), Math.exp(logs)];
            }""",
            which,
        )
    )


def test_f14_dividing_by_d_draws_its_own_curve_at_one_over_root_d(en_at_start):
    page = en_at_start.page
    for width in (1, 16, 64, 256):
        set_state(page, "spread", {"width": width})
        w, spread = dot_on_axes(page, ".dot.low")
        assert w == pytest.approx(width, rel=1e-6)
        assert spread == pytest.approx(1 / math.sqrt(width), abs=1e-6)
        w, spread = dot_on_axes(page)
        assert spread == pytest.approx(math.sqrt(width), abs=1e-6)
    # three curves: √d (no divisor), the line at 1 (÷ √d) and 1/√d (÷ d)
    assert page.locator("#spread path.curve").count() == 2
    assert page.locator("#spread line.reference").count() == 1
    labels = page.locator(
        "#spread text.curve-label, #spread text.reference-label"
    ).all_text_contents()
    assert labels == ["÷ √d: 1, comfortable", "no divisor: √d", "÷ d: 1/√d"]


def test_f14_log_ticks_are_labelled_and_the_line_sits_at_one(en_at_start):
    page = en_at_start.page
    labels = page.locator("#spread text.tick:not(.end)").all_text_contents()
    assert labels == ["1", "4", "16", "64", "256"]  # the width axis, log: each four times the last
    # the reference line is drawn where the left axis says 1
    line = float(page.locator("#spread line.reference").get_attribute("y1"))
    ticks = {
        t.text_content(): float(t.get_attribute("y"))  # on its value; set off by dx, dy
        for t in page.locator("#spread text.tick.end").all()
    }
    assert line == pytest.approx(ticks["1"])
    # the spread's axis is log too: ÷ d's 1/√d mirrors √d about that line, not a baseline hugger
    assert list(ticks) == ["1/16", "1/4", "1", "4", "16"]


def test_f15_the_mix_collapses_with_width(en_at_start):
    page = en_at_start.page
    for width in walk_widths(page, "collapse"):
        top, gradient = top_and_gradient(width_mix(HEAD, width, "none"))
        mix = width_mix(HEAD, width, "none")
        assert readouts(page, "collapse") == bars("w", mix, bar_weight) | {
            "gradient": weight_text(gradient),
        }
        assert top_bar(page, "collapse") == fixed(top, 3)
        if width in (2, 16, 64):
            assert top_bar(page, "collapse") == claim(page, f"sqrtd.d{width}")
    assert top_bar(page, "collapse") == "1.000"
    assert "× 10⁻" in readouts(page, "collapse")["gradient"]  # tiny at 256, and still not 0


@pytest.mark.parametrize(("divisor", "name"), [("none", "1"), ("sqrt", "√d"), ("d", "d")])
def test_f16_each_divisor_at_every_width(en_at_start, divisor, name):
    page = en_at_start.page
    page.locator("#divisor").get_by_role("radio", name=name, exact=True).check()
    next_frame(page)
    assert state(page, "divisor")["divisor"] == divisor
    tops = []
    for width in walk_widths(page, "divisor", WIDTH_DOT):
        top, _ = top_and_gradient(width_mix(HEAD, width, divisor))
        mix = width_mix(HEAD, width, divisor)
        assert readouts(page, "divisor") == bars("w", mix, bar_weight)
        assert top_bar(page, "divisor") == fixed(top, 3)
        tops.append(top_bar(page, "divisor"))
    if divisor == "sqrt":  # the cure: the same mix at every width
        # F11's ate row, the toy's own, at every width: the two figures agree
        assert {t[:4] for t in tops} == {claim(page, "sqrtd.held")} == {"0.44"}
        assert len(set(tops)) == 1
    elif divisor == "d":  # overdone: the mix drifts toward 1/6
        assert [float(t) for t in tops] == sorted(map(float, tops), reverse=True)
        assert float(tops[-1]) < 0.19
    else:
        assert tops[-1] == "1.000"


def test_f16_arrow_keys_move_between_divisors(en_at_start):
    page = en_at_start.page
    press(page, "#divisor input[type=radio]:checked", "ArrowRight")
    assert state(page, "divisor")["divisor"] == "sqrt"
    press(page, f"#divisor {WIDTH_DOT}", "End")
    assert top_bar(page, "divisor") == "0.440"
    assert page.locator("#divisor input[type=range]").count() == 0  # the width is the dot's


def test_f16_a_curve_per_divisor_the_dot_on_the_chosen_one(en_at_start):
    """The top weight over the width, one curve per divisor: √d's is flat at the toy's 0.44,
    the chosen one is drawn full, and pressing a curve chooses its divisor."""
    page = en_at_start.page
    names = page.locator("#divisor text.curve-label").all_text_contents()
    held = fixed(top_and_gradient(width_mix(HEAD, 1, "sqrt"))[0], 3)
    assert held.startswith(claim(page, "sqrtd.held"))  # the prose's 0.44
    assert names == ["÷ 1", "÷ √d", "÷ d"]  # the divisor alone: no number at the edge
    flat = page.locator("#divisor path.curve.sqrt").get_attribute("d") or ""
    heights = {round(float(p.split()[-1]), 3) for p in flat.split("L")}
    assert len(heights) == 1  # the same top weight at every width
    page.locator("#divisor text.curve-label", has_text="÷ d").click()
    next_frame(page)
    assert state(page, "divisor")["divisor"] == "d"
    assert page.locator("#divisor .chosen").count() == 2  # the curve and its name


# -- fill-matrix–divisor together ------------------------------------------------------------------


FIGURES = [SLUGS[f"F{i:02d}"] for i in range(8, 17)]  # fill-matrix to divisor


# the claims the paragraph right after each figure states (give-way states none)
PROSE = {
    "fill-matrix": ["counts.dot"],
    "walk-rows": ["matrix.it.cat"],
    "transpose": ["asym.cat.ate", "asym.ate.cat"],
    "staircase": ["softmax.it.cat", "softmax.it.the"],
    "never-zero": ["softmax.floor.minus30"],
    "spread": ["spread.d64"],
    "collapse": ["sqrtd.d16", "sqrtd.d64"],
    "divisor": ["sqrtd.held"],
}


def test_at_most_four_readouts_beside_each_figure_and_one_key(article_at_start):
    page = article_at_start.page
    for figure_id in FIGURES:
        beside = page.locator(f"#{figure_id} .readouts [data-readout]")
        assert beside.count() <= 4, figure_id
        # one number a screen reader hears as it changes: beside the picture, or a mark's own
        # number in it (F15's axis title, F16's bar for ate), where a read-out would repeat it
        key = page.locator(f"#{figure_id} .readout.key, #{figure_id} .stage svg [data-key]")
        assert key.count() == 1, figure_id
        # notation, never an underscore, anywhere a reader can see
        assert "_" not in page.locator(f"#{figure_id} .stage").inner_text(), figure_id


def test_each_figure_states_its_claims_in_the_prose_next_to_it(article_at_start):
    page = article_at_start.page
    for figure_id, claim_ids in PROSE.items():
        after = page.locator(f"#{figure_id} + *")  # a paragraph, or the block an answer waits in
        for claim_id in claim_ids:
            printed = after.locator(f'[data-claim="{claim_id}"]').text_content()
            if claim_id in BY_ID:
                assert printed == BY_ID[claim_id].computed(HEAD), claim_id


def test_the_prose_around_these_figures_has_every_number_filled(en_at_start):
    text = en_at_start.page.evaluate(
        """() => { let e = document.getElementById('matrix'), out = '';
            for (e = e.nextElementSibling; e && e.id !== 'causal'; e = e.nextElementSibling)
                out += e.textContent;
            return out; }"""
    )
    assert "{{" not in text
