"""Nothing drawn on top of anything: no label on an arrow, a line, a bar, a knob, a focus
ring or another label, in every state a figure's controls reach.

Each figure is walked in the page (every_state.js: presets, slider ends, switches, buttons,
handles at their ends, every control focused) and then driven at random for a few short
runs (random_drive.js), at 1280 px and 390 px, on the page of each language; after each
step text_on_marks.js lists the labels that touch a mark. test_labels.py checks text
against text and the picture's edge; this checks text against what the picture draws.
"""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest

from .drive import DRIVE, FIGURES, KEYS

HERE = Path(__file__).parent
# the measuring function, installed on the page under this name for every_state.js to call
MEASURE = "textOnMarks"
TEXT_ON_MARKS = (HERE / "text_on_marks.js").read_text("utf-8")
EVERY_STATE = (HERE / "every_state.js").read_text("utf-8")
WIDTHS = (1280, 390)
RANDOM_RUNS, RANDOM_STEPS = 2, 8
# the random runs in one evaluate, each measured where it stops (the drive waits for the redraw)
RANDOM_RUNS_JS = f"""async ([id, seed, runs, steps, keys]) => {{
    const drive = {DRIVE};
    const hits = [];
    for (let run = 0; run < runs; run += 1) {{
        await drive([id, seed + run, steps, keys]);
        hits.push(window.{MEASURE}(id));
    }}
    return hits;
}}"""
REDUCED = "() => matchMedia('(prefers-reduced-motion: reduce)').matches"
# one figure back to its state at load, the focus back on the body
AT_LOAD = """([id, initial]) => {
    const f = document.getElementById(id).figure;
    if (JSON.stringify(f.state) !== JSON.stringify(initial)) f.set(initial);
    document.activeElement?.blur();
}"""
# figures still drawing text on a mark, each with what is left to do: expected to fail
# (strict, so a fix shows up as an unexpected pass and the entry is removed)
NOT_YET: dict[str, str] = {}


ON_SCREEN = """async (id) => {
  document.getElementById(id).scrollIntoView();
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
}"""


def hits_in_every_state(page, figure_id: str) -> list[str]:
    """Each hit once, with the first state it was seen in."""
    page.evaluate(f"() => {{ window.{MEASURE} = {TEXT_ON_MARKS}; }}")
    seen: dict[str, str] = {}
    for where, hits in page.evaluate(EVERY_STATE, [figure_id, MEASURE]):
        for hit in hits:
            seen.setdefault(hit, where)
    seed = zlib.crc32(figure_id.encode())
    runs = page.evaluate(RANDOM_RUNS_JS, [figure_id, seed, RANDOM_RUNS, RANDOM_STEPS, KEYS])
    for run, hits in enumerate(runs):
        for hit in hits:
            seen.setdefault(hit, f"random drive {run}")
    return [f"{hit} ({where})" for hit, where in seen.items()]


@pytest.mark.parametrize(
    ("width", "figure_id"),
    # every figure at one width, then every figure at the next: the page (all of its figures)
    # is laid out again only when the width changes
    [
        pytest.param(w, f, marks=pytest.mark.xfail(reason=NOT_YET[f], strict=True))
        if f in NOT_YET
        else (w, f)
        for w in WIDTHS
        for f in FIGURES
    ],
)
def test_no_text_sits_on_a_mark_in_any_state(shared_article, width, figure_id):
    shared = shared_article
    page = shared.page
    # the page is set up once a width, not reset whole for each figure (Shared.reset changes
    # the media twice, restyling every figure): only this figure goes back to its state at load
    if page.viewport_size != {"width": width, "height": 900}:
        page.set_viewport_size({"width": width, "height": 900})
    if not page.evaluate(REDUCED):
        page.emulate_media(reduced_motion="reduce")  # measured at rest, not mid-flight
    page.evaluate(AT_LOAD, [figure_id, shared.initial[figure_id]])
    # on screen, as a reader meets it: off screen the page skips the figure's layout
    # (content-visibility) and the stage cannot size its type to the picture
    page.evaluate(ON_SCREEN, figure_id)
    problems = hits_in_every_state(page, figure_id)
    assert shared.errors == [], shared.errors
    assert shared.foreign == [], shared.foreign
    listed = "\n".join(problems[:40])
    assert problems == [], f"{figure_id} at {width} px: {len(problems)} texts on marks:\n{listed}"
