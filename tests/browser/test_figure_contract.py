"""The contract every figure keeps, checked on each figure there is a module for (FIGURES).

- It starts clean: its module is loaded, every read-out prints something and nothing broken,
  exactly one read-out (its key one) is announced, and every control has a name.
- Garbage state is clamped to a valid state: GARBAGE_CASES says, figure by figure, what a
  piece of garbage must become from a given start; and any garbage at all (FUZZ) leaves a
  state of the same shape, one clamp keeps as it is, with clean read-outs, and no trace.
- On a phone (360 and 390 px) nothing scrolls sideways, and every target is a fingertip
  (44 px) and every label legible.

Each in both languages.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator

import pytest

from selfattn.head import load_head

from .conftest import Watched, open_page
from .drive import (
    FIGURES,
    MODULES,
    READ_OUTS_JS,
    check_clean,
    clean_readouts,
    set_state,
    state,
)

LANGS = {"zh": "", "en": "en/"}
PHONES = [(lang, width) for lang in LANGS for width in (360, 390)]

HEAD = load_head()
IT, CAT = HEAD.index("it"), HEAD.index("cat")
RUN = HEAD.run()
X_IT = HEAD.X[IT].tolist()  # drag-input's start: the input of `it`
Q_IT = (HEAD.X[IT] @ HEAD.W_Q).tolist()  # shadow's start: the query of `it`
# drag-input lets the input go as far as one unit straight up from `it`, to the quarter unit
F02_REACH = math.ceil(math.hypot(X_IT[0], X_IT[1] + 1) * 4) / 4
# [NaN, 1e9]: NaN falls back to the start's coordinate, then the point is pulled in to reach
F02_FAR = [c * F02_REACH / math.hypot(X_IT[0], 1e9) for c in (X_IT[0], 1e9)]
ALL_BUGS = {"multiply": True, "noPositions": False, "noSqrt": True, "longKey": True}
NO_BUGS = {"multiply": False, "noPositions": True, "noSqrt": False, "longKey": False}

# the one read-out each figure announces (aria-live) as the reader drives it
KEY_READOUT = {
    "install": "x",
    "drag-input": "q.turn",
    "query-meets-keys": "winner",
    "two-maps": "cat.ate",
    "shadow": "score",
    "score-row": "top",
    "long-key": "winner",
    "fill-matrix": "dots",
    "walk-rows": "top",
    "transpose": "mirror",
    "staircase": "total",
    "give-way": "sum",
    "never-zero": "w.cat",
    "spread": "spread",
    "collapse": "gradient",
    "divisor": "w.ate",
    "remove-future": "discarded",
    "asking-position": "bar.the",
    "multiply-leak": "score.ran",
    "tip-to-tail": "sum",
    "convex-hull": "output",
    "shuffle": "output",
    "context-cost": "head",
    "attention-map": "masked",
    "silent-bugs": "failing",
    "tiled-pass": "output",
    "gradient-finds-cat": "loss",
    "positions-turn": "score",
    "two-heads": "output",
}

# (figure, start, garbage, expected): from `start`, set(garbage) must leave exactly `expected`.
# Each start differs from where the garbage should land, so a clamp that ignored the garbage
# (or kept it) fails, and no garbage is already a valid state (test_every_case_needs_a_clamp).
# A figure's first start is away from where it starts on the page: the fuzz starts there.
GARBAGE_CASES = [
    ("install", {"installed": 2}, {"installed": "x"}, {"installed": 0}),
    ("install", {"installed": 0}, {"installed": 99}, {"installed": 3}),
    ("install", {"installed": 0}, {"installed": 1.6}, {"installed": 2}),
    ("drag-input", {"x": [0.5, 0.5]}, {"x": [math.nan, 1e9]}, {"x": pytest.approx(F02_FAR)}),
    ("drag-input", {"x": [0.5, 0.5]}, {"x": "nonsense"}, {"x": X_IT}),
    ("drag-input", {"x": [0.5, 0.5]}, {"x": [1, 2, 3]}, {"x": X_IT}),
    ("query-meets-keys", {"token": 0}, {"token": "dog"}, {"token": IT}),
    ("query-meets-keys", {"token": 0}, {"token": 2.5}, {"token": IT}),
    ("query-meets-keys", {"token": 0}, {"token": "cat"}, {"token": CAT}),
    ("two-maps", {"mix": 0.5}, {"mix": -5}, {"mix": 0}),
    ("two-maps", {"mix": 0.5}, {"mix": "x"}, {"mix": 0}),
    ("two-maps", {"mix": 0}, {"mix": 0.337}, {"mix": 0.34}),
    ("shadow", {"q": [1, 0.5]}, {"q": "nonsense"}, {"q": Q_IT}),
    ("shadow", {"q": [1, 0.5]}, {"q": [math.nan, 0.5]}, {"q": pytest.approx([Q_IT[0], 0.5])}),
    ("score-row", {"token": 0}, {"token": 17}, {"token": IT}),
    ("score-row", {"token": 0}, {"token": "ran"}, {"token": HEAD.index("ran")}),
    ("long-key", {"f": 3}, {"f": "abc"}, {"f": 1}),
    ("long-key", {"f": 1}, {"f": 1e9}, {"f": 5}),
    ("long-key", {"f": 1}, {"f": 4.44}, {"f": 4.4}),
    ("fill-matrix", {"rows": 3}, {"rows": "x"}, {"rows": 1}),
    ("fill-matrix", {"rows": 0}, {"rows": 99}, {"rows": 6}),
    ("walk-rows", {"row": 2}, {"row": -3}, {"row": 0}),
    ("walk-rows", {"row": 2}, {"row": "it"}, {"row": IT}),
    ("walk-rows", {"row": 0}, {"row": 2.6}, {"row": 3}),
    ("transpose", {"transposed": True}, {"transposed": "yes"}, {"transposed": False}),
    ("transpose", {"transposed": True}, {"transposed": 1}, {"transposed": False}),
    (
        "staircase",
        {"row": 2, "shift": "max"},
        {"row": 1e9},
        {"row": 5, "shift": "max"},
    ),
    (
        "staircase",
        {"row": 1, "shift": "0"},
        {"row": "dog"},
        {"row": IT, "shift": "0"},
    ),
    (
        "staircase",
        {"row": 4, "shift": "max"},
        {"shift": "1e999"},
        {"row": 4, "shift": "0"},
    ),
    # valid values kept, a key the figure does not have dropped
    (
        "staircase",
        {"row": 4, "shift": "0"},
        {"shift": "max", "junk": 1},
        {"row": 4, "shift": "max"},
    ),
    ("give-way", {"score": 3}, {"score": "x"}, {"score": pytest.approx(RUN["S"][IT, CAT])}),
    ("give-way", {"score": 1}, {"score": 1e9}, {"score": 4}),
    ("never-zero", {"score": 0}, {"score": -1e300}, {"score": -30}),
    (
        "never-zero",
        {"score": -10},
        {"score": math.nan},
        {"score": pytest.approx(RUN["S"][IT, CAT])},
    ),
    ("spread", {"width": 16}, {"width": 1e9}, {"width": 256}),
    ("spread", {"width": 1}, {"width": 50}, {"width": 64}),
    ("collapse", {"width": 16}, {"width": "x"}, {"width": 1}),
    ("collapse", {"width": 16}, {"width": -8}, {"width": 1}),
    (
        "divisor",
        {"width": 16, "divisor": "sqrt"},
        {"width": math.inf, "divisor": "√d"},
        {"width": 1, "divisor": "none"},
    ),
    (
        "divisor",
        {"width": 4, "divisor": "none"},
        {"divisor": "d", "junk": 1},
        {"width": 4, "divisor": "d"},
    ),
    ("remove-future", {"rows": 3}, {"rows": -2.4}, {"rows": 0}),
    ("remove-future", {"rows": 0}, {"rows": 99}, {"rows": 6}),
    ("remove-future", {"rows": 0}, {"rows": "3"}, {"rows": 3}),
    ("asking-position", {"position": 1}, {"position": "x"}, {"position": 4}),
    ("asking-position", {"position": 4}, {"position": -3}, {"position": 0}),
    ("asking-position", {"position": 0}, {"position": 2.5}, {"position": 3}),
    ("multiply-leak", {"multiply": True}, {"multiply": "yes"}, {"multiply": False}),
    ("multiply-leak", {"multiply": True}, {"multiply": 1}, {"multiply": False}),
    ("tip-to-tail", {"terms": 4}, {"terms": None}, {"terms": 0}),
    ("tip-to-tail", {"terms": 0}, {"terms": 2.6}, {"terms": 3}),
    ("convex-hull", {"raw": 1, "layers": 1}, {"raw": 100, "layers": 7.4}, {"raw": 9, "layers": 3}),
    (
        "convex-hull",
        {"raw": 5, "layers": 2},
        {"raw": "x", "layers": "x"},
        {"raw": pytest.approx(RUN["R"][IT, CAT]), "layers": 1},
    ),
    # anything but a permutation of the six keys leaves the order as it was
    (
        "shuffle",
        {"order": [5, 4, 3, 2, 1, 0]},
        {"order": [0, 0, 1, 2, 3, 4]},
        {"order": [5, 4, 3, 2, 1, 0]},
    ),
    ("shuffle", {"order": [2, 0, 1, 5, 4, 3]}, {"order": "shuffle"}, {"order": [2, 0, 1, 5, 4, 3]}),
    ("context-cost", {"n": 64}, {"n": 1e9}, {"n": 131072}),
    ("context-cost", {"n": 1024}, {"n": -5}, {"n": 16}),
    ("context-cost", {"n": 1024}, {"n": 1000.4}, {"n": 1000}),
    # only false itself switches the mask off: a string or a number leaves it on
    ("attention-map", {"causal": False}, {"causal": "false"}, {"causal": True}),
    ("attention-map", {"causal": False}, {"causal": 0}, {"causal": True}),
    (
        "silent-bugs",
        ALL_BUGS,
        {"multiply": "yes", "noPositions": 0, "noSqrt": None, "longKey": {}},
        NO_BUGS,
    ),
    (
        "tiled-pass",
        {"tile": 2, "step": 1, "bug": "rescale"},
        {"tile": 7, "step": 99, "bug": "x"},
        {"tile": 2, "step": 3, "bug": "none"},
    ),
    (
        "tiled-pass",
        {"tile": 1, "step": 0, "bug": "none"},
        {"tile": "2", "step": 2.6},
        {"tile": 2, "step": 3, "bug": "none"},
    ),
    (
        "tiled-pass",
        {"tile": 1, "step": 0, "bug": "none"},
        {"tile": 3, "step": "NaN", "bug": None},
        {"tile": 3, "step": 0, "bug": "none"},
    ),
    (
        "tiled-pass",
        {"tile": 1, "step": 0, "bug": "none"},
        {"tile": 3, "step": -4, "bug": "divide"},
        {"tile": 3, "step": 0, "bug": "divide"},
    ),
    # a seed rounds into 1..20, a rate the page does not offer keeps the one before
    (
        "gradient-finds-cat",
        {"seed": 3, "rate": 0.3, "step": 50},
        {"seed": 1e9, "rate": 0.7, "step": -4},
        {"seed": 20, "rate": 0.3, "step": 0},
    ),
    (
        "gradient-finds-cat",
        {"seed": 3, "rate": 0.3, "step": 50},
        {"seed": "x", "rate": "0.1", "step": 99.6},
        {"seed": 3, "rate": 0.1, "step": 100},
    ),
    (
        "gradient-finds-cat",
        {"seed": 3, "rate": 0.03, "step": 50},
        {"seed": 4.4, "rate": True, "step": 1e9},
        {"seed": 4, "rate": 0.03, "step": 200},
    ),
    # θ keeps two decimals within [0, 3.14]; a shift is a whole number of positions, 0 to 10
    (
        "positions-turn",
        {"theta": 2, "shift": 3},
        {"theta": 1e9, "shift": -2},
        {"theta": 3.14, "shift": 0},
    ),
    (
        "positions-turn",
        {"theta": 2, "shift": 3},
        {"theta": "x", "shift": 4.6},
        {"theta": 2, "shift": 5},
    ),
    (
        "positions-turn",
        {"theta": 2, "shift": 3},
        {"theta": 0.456, "shift": 99},
        {"theta": 0.46, "shift": 10},
    ),
    # a switch is on or off: anything but a boolean keeps what it was
    ("two-heads", {"h1": True, "h2": True}, {"h1": False, "h2": "off"}, {"h1": False, "h2": True}),
    ("two-heads", {"h1": False, "h2": True}, {"h1": 1, "h2": False}, {"h1": False, "h2": False}),
]

# Garbage for any figure, as JS (NaN, ±Infinity and undefined do not survive JSON): whole
# partials that are not objects or mix keys of many figures, then each value tried on each
# key of the figure's state.
FUZZ_PARTIALS = """[
  {}, null, 7, "text", [], {rows: NaN, position: Infinity, multiply: "yes", terms: -Infinity},
  {raw: "8", n: {}, causal: "false", order: [0, 0, 1, 2, 3, 4]},
  {raw: NaN, n: NaN, order: "shuffle", rows: "3", terms: [2]},
  {position: -1e308, raw: 1e308, n: -5, order: [5, 4, 3, 2, 1], noPositions: 0},
  {multiply: 1, noSqrt: "true", longKey: {}, causal: undefined, terms: 2.6},
  {raw: -Infinity, n: Infinity, order: [0, 1, 2, 3, 4, 5.5], position: "4"}
]"""
FUZZ_VALUES = """[
  NaN, Infinity, -Infinity, 1e308, -1e308, -1, 0.5, 99, "", "text", "1e999", "NaN", null,
  undefined, true, false, {}, [], [NaN, Infinity], [1e308, -1e308], [0, 0, 1], "__proto__"
]"""
FUZZ_JS = f"""id => {{
  const f = document.getElementById(id).figure;
  const read = {READ_OUTS_JS};
  const keys = Object.keys(f.state);
  const partials = [...{FUZZ_PARTIALS},
                    ...keys.flatMap(k => {FUZZ_VALUES}.map(v => ({{[k]: v}})))];
  return partials.map(g => {{
    f.set(g);
    f.redraw();
    const after = f.state;
    f.set({{}});  // a valid state is one the clamp keeps as it is
    return {{garbage: String(JSON.stringify(g)), state: after, again: f.state, shown: read(id)}};
  }});
}}"""

# the targets a finger uses: each at least 44 × 44 px; and every control inside the stage, by
# the box it is pressed through (its label, its handle, or itself); the smallest visible
# SVG label at least 7 px high (SVG text scales down with its picture)
PHONE_JS = """([id, width, leavesOut]) => {
  const fig = document.getElementById(id), stage = fig.querySelector('.stage');
  const problems = [];
  const size = r => `${r.width.toFixed(1)} × ${r.height.toFixed(1)}`;
  const what = e => `${e.tagName.toLowerCase()}.${e.getAttribute('class') || ''}` +
    `[${(e.getAttribute('aria-label') || e.textContent).trim().slice(0, 30)}]`;
  if (document.documentElement.scrollWidth > width) {
    problems.push(`the page is ${document.documentElement.scrollWidth} px wide`);
  }
  for (const [name, e] of [['figure', fig], ['stage', stage]]) {
    if (e.scrollWidth > e.clientWidth) {
      problems.push(`${name} overflows: ${e.scrollWidth} > ${e.clientWidth}`);
    }
  }
  // a control the layout leaves out on a phone (display: none) is no target; one shown is
  const shown = e => (e.closest('label') || e).getClientRects().length > 0
    || e.type === 'radio' || e.type === 'checkbox';
  const all = [...stage.querySelectorAll('input, button, [role=slider]')];
  const controls = all.filter(shown);
  if (controls.length === 0) problems.push('no controls');
  // one the layout leaves out must be one the figure means to leave out (PHONE_LEAVES_OUT)
  for (const e of all.filter(e => !shown(e) && !e.hidden && !e.closest('[hidden]'))) {
    if (!leavesOut.includes(e.getAttribute('name'))) problems.push(`${what(e)} is left out`);
  }
  for (const e of controls) {
    const r = (e.closest('label') || e.closest('.handle') || e).getBoundingClientRect();
    if (Math.min(r.width, r.height) < 44) problems.push(`control ${what(e)} is ${size(r)}`);
  }
  const targets = fig.querySelectorAll(
    '.stage button, label.chip, input[type=range], .handle .hit, .figure-tools summary');
  for (const e of [...targets].filter(shown)) {
    const r = e.getBoundingClientRect();
    if (r.width < 44 || r.height < 44) problems.push(`target ${what(e)} is ${size(r)}`);
  }
  const labels = [...fig.querySelectorAll('svg text')]
    .filter(t => t.textContent.trim() && t.getClientRects().length);
  const smallest = Math.min(...labels.map(t => t.getBoundingClientRect().height));
  if (smallest < 7) problems.push(`a label is ${smallest.toFixed(1)} px high`);
  return problems;
}"""


def page_for(browser, site_url: str, lang: str, width: int = 1280) -> Iterator[Watched]:
    """One language page for a whole module; fails if it logged an error or went abroad."""
    watched = open_page(browser, site_url + LANGS[lang], width=width)
    yield watched
    assert watched.errors == [], watched.errors
    assert watched.foreign == [], watched.foreign
    watched.page.context.close()


@pytest.fixture(scope="module", params=LANGS)
def fresh(request, browser, site_url) -> Iterator[Watched]:
    """A page no test drives: every figure as it starts."""
    yield from page_for(browser, site_url, request.param)


@pytest.fixture(scope="module", params=LANGS)
def driven(request, browser, site_url) -> Iterator[Watched]:
    """A page the garbage tests drive (each sets the start it needs first)."""
    yield from page_for(browser, site_url, request.param)


@pytest.fixture(scope="module", params=PHONES, ids=[f"{lang}-{w}" for lang, w in PHONES])
def phone(request, browser, site_url) -> Iterator[tuple[Watched, int]]:
    lang, width = request.param
    for watched in page_for(browser, site_url, lang, width):
        yield watched, width


def case_id(case) -> str:
    figure_id, _, garbage, _ = case
    return f"{figure_id}-" + json.dumps(garbage, ensure_ascii=False).replace(" ", "")


# -- the figures are the modules -------------------------------------------------------------


def test_each_module_is_one_started_figure_on_the_page(fresh):
    figures = fresh.page.evaluate(
        """[...document.querySelectorAll('figure[data-figure]')]
            .map(f => [f.id, f.dataset.figure, f.dataset.module, Boolean(f.figure)])"""
    )
    modules = {m.stem: f"js/figures/{m.name}" for m in MODULES.glob("*.js")}
    assert len(FIGURES) == len(modules) >= 26
    assert [f[0] for f in figures] == FIGURES  # by slug, in page order
    for figure_id, data_figure, module, started in figures:
        assert (data_figure, module, started) == (figure_id, modules[figure_id], True)


# -- every figure starts clean -----------------------------------------------------------------


@pytest.mark.parametrize("figure_id", FIGURES)
def test_starts_with_clean_readouts_one_announced_and_named_controls(fresh, figure_id):
    page = fresh.page
    start = state(page, figure_id)
    assert isinstance(start, dict) and start, f"{figure_id} has no state"
    assert clean_readouts(page, figure_id), f"{figure_id} shows no read-outs"
    announced = page.eval_on_selector_all(
        f"#{figure_id} [data-readout][aria-live=polite]", "els => els.map(e => e.dataset.readout)"
    )
    assert announced == [KEY_READOUT[figure_id]], figure_id
    # a control's name, whichever of its own label, aria-label or text a reader meets first
    names = page.eval_on_selector_all(
        f"#{figure_id} button, #{figure_id} input, #{figure_id} [role=slider]",
        """els => els.map(e => [
            e.getAttribute('aria-label') || e.labels?.[0]?.textContent || e.textContent,
            e.labels?.[0]?.textContent || e.getAttribute('aria-label') || e.textContent])""",
    )
    assert names, f"{figure_id} has no controls"
    for k, pair in enumerate(names):
        assert all(name and name.strip() for name in pair), f"{figure_id} control {k}: {pair}"


# -- garbage state is clamped ------------------------------------------------------------------


def test_every_case_needs_a_clamp_and_every_figure_has_one():
    """The table itself: garbage that is already a valid state would pass with no clamp."""
    assert {case[0] for case in GARBAGE_CASES} == set(FIGURES)
    for figure_id, start, garbage, expected in GARBAGE_CASES:
        assert {**start, **garbage} != expected, (figure_id, garbage)


@pytest.mark.parametrize(
    ("figure_id", "start", "garbage", "expected"),
    GARBAGE_CASES,
    ids=[case_id(c) for c in GARBAGE_CASES],
)
def test_garbage_is_clamped_to_the_expected_state(driven, figure_id, start, garbage, expected):
    page = driven.page
    set_state(page, figure_id, start)
    assert state(page, figure_id) == start, "the case's start is not a valid state"
    set_state(page, figure_id, garbage)
    assert state(page, figure_id) == expected
    clean_readouts(page, figure_id, f"after {garbage}")


def same_kind(value, like) -> bool:
    """Whether a state value is a valid one of the kind `like` is (finite where a number)."""
    if isinstance(like, bool | str):
        return type(value) is type(like)
    if isinstance(like, int | float):
        return (
            isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        )
    if isinstance(like, list):
        return (
            isinstance(value, list)
            and len(value) == len(like)
            and all(same_kind(v, x) for v, x in zip(value, like, strict=True))
        )
    raise AssertionError(f"a state value of an unknown kind: {like!r}")


def drawn_readouts(page, figure_id: str) -> dict[str, str]:
    """The read-outs a reader can see, clean, by name (a hidden one may keep an old number:
    drag-input's turn once its arc hides)."""
    shown = page.evaluate(READ_OUTS_JS, figure_id)
    check_clean(figure_id, shown)
    return {name: text for name, text, drawn in shown if drawn}


def same(a, b) -> bool:
    """Equal, numbers to 1 part in 10¹² (a point pulled in to a circle's edge may move by
    its last bit when clamped again)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    numbers = [isinstance(x, int | float) and not isinstance(x, bool) for x in (a, b)]
    if all(numbers):
        return math.isclose(a, b, rel_tol=1e-12)
    return not any(numbers) and type(a) is type(b) and a == b


@pytest.mark.parametrize("figure_id", FIGURES)
def test_any_garbage_leaves_a_valid_state_clean_readouts_and_no_trace(driven, figure_id):
    page = driven.page
    start = next(case[1] for case in GARBAGE_CASES if case[0] == figure_id)
    set_state(page, figure_id, start)
    before = drawn_readouts(page, figure_id)
    records = page.evaluate(FUZZ_JS, figure_id)
    moved = any(record["state"] != start for record in records)
    # a figure whose cases all keep the start ignores garbage; any other one some moves
    ignores = all(case[1] == case[3] for case in GARBAGE_CASES if case[0] == figure_id)
    assert moved != ignores, f"{figure_id}: moved by garbage {moved}, ignores it {ignores}"
    for record in records:
        where = (figure_id, record["garbage"], record["state"])
        after = record["state"]
        assert after.keys() == start.keys(), where
        for key, value in after.items():
            assert value is not None and same_kind(value, start[key]), (*where, key)
        assert same(record["again"], after), (*where, record["again"])
        check_clean(figure_id, record["shown"], f"after {record['garbage']}")
    set_state(page, figure_id, start)
    assert state(page, figure_id) == start
    assert drawn_readouts(page, figure_id) == before


# -- a phone -------------------------------------------------------------------------------------


# the controls a figure leaves out on a phone, by name: F27's Step (its loss's dot steps); any
# other control the layout hides there is hidden by mistake
PHONE_LEAVES_OUT = {"gradient-finds-cat": ["next"]}


@pytest.mark.parametrize("figure_id", FIGURES)
def test_on_a_phone_nothing_overflows_and_every_target_is_a_fingertip(phone, figure_id):
    watched, width = phone
    page = watched.page
    page.locator(f"#{figure_id}").scroll_into_view_if_needed()
    leaves_out = PHONE_LEAVES_OUT.get(figure_id, [])
    assert page.evaluate(PHONE_JS, [figure_id, width, leaves_out]) == [], figure_id
