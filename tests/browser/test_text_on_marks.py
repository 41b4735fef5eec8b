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

from .drive import DRIVE, FIGURES, KEYS, next_frame

HERE = Path(__file__).parent
# the measuring function, installed on the page under this name for every_state.js to call
MEASURE = "textOnMarks"
TEXT_ON_MARKS = (HERE / "text_on_marks.js").read_text("utf-8")
EVERY_STATE = (HERE / "every_state.js").read_text("utf-8")
WIDTHS = (1280, 390)
RANDOM_RUNS, RANDOM_STEPS = 2, 8
# figures still drawing text on a mark, each with what is left to do: expected to fail
# (strict, so a fix shows up as an unexpected pass and the entry is removed)
NOT_YET = {
    "F24": "a token's name sits on the trail (the tiled-pass redraw owns the figure)",
}


def hits_in_every_state(page, figure_id: str) -> list[str]:
    """Each hit once, with the first state it was seen in."""
    page.evaluate(f"() => {{ window.{MEASURE} = {TEXT_ON_MARKS}; }}")
    seen: dict[str, str] = {}
    for where, hits in page.evaluate(EVERY_STATE, [figure_id, MEASURE]):
        for hit in hits:
            seen.setdefault(hit, where)
    seed = zlib.crc32(figure_id.encode())
    for run in range(RANDOM_RUNS):
        page.evaluate(DRIVE, [figure_id, seed + run, RANDOM_STEPS, KEYS])
        next_frame(page)
        for hit in page.evaluate(f"id => window.{MEASURE}(id)", figure_id):
            seen.setdefault(hit, f"random drive {run}")
    return [f"{hit} ({where})" for hit, where in seen.items()]


@pytest.mark.parametrize(
    "figure_id",
    [
        pytest.param(f, marks=pytest.mark.xfail(reason=NOT_YET[f], strict=True))
        if f in NOT_YET
        else f
        for f in FIGURES
    ],
)
def test_no_text_sits_on_a_mark_in_any_state(article_at_start, figure_id):
    shared = article_at_start
    page = shared.page
    problems = []
    try:
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": 900})
            shared.reset()
            page.emulate_media(reduced_motion="reduce")  # measured at rest, not mid-flight
            problems += [f"{width} px: {p}" for p in hits_in_every_state(page, figure_id)]
    finally:
        page.set_viewport_size({"width": 1280, "height": 900})
    listed = "\n".join(problems[:40])
    assert problems == [], f"{figure_id}: {len(problems)} texts on marks:\n{listed}"
