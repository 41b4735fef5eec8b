"""A randomized drive of every figure: thousands of key presses and drags, nothing breaks."""

from __future__ import annotations

import random

import pytest

from .drive import next_frame, readouts

FIGURES = [f"F{i:02d}" for i in range(1, 26)]
KEYS = [
    "ArrowLeft",
    "ArrowRight",
    "ArrowUp",
    "ArrowDown",
    "Home",
    "End",
    "PageUp",
    "PageDown",
    "Shift+ArrowUp",
    "Shift+ArrowLeft",
    "Enter",
    " ",
]
BAD = ("NaN", "Infinity", "undefined", "null")


def check(page, figure_id: str, step: int) -> None:
    for name, text in readouts(page, figure_id).items():
        assert text.strip() and not any(bad in text for bad in BAD), (figure_id, step, name, text)


@pytest.mark.parametrize("figure_id", FIGURES)
def test_random_keys_and_drags_never_break_a_figure(en, figure_id):
    rng = random.Random(figure_id)
    page = en.page
    page.locator(f"#{figure_id} .skip").first.click() if page.locator(
        f"#{figure_id} .skip"
    ).count() else None
    controls = page.locator(
        f"#{figure_id} .stage input, #{figure_id} .stage button, "
        f"#{figure_id} .stage select, #{figure_id} .stage [tabindex='0']"
    )
    count = controls.count()
    assert count > 0
    handles = page.locator(f"#{figure_id} .handle")
    for step in range(100):
        if handles.count() and rng.random() < 0.15:
            handle = handles.nth(rng.randrange(handles.count()))
            handle.scroll_into_view_if_needed()
            box = handle.bounding_box()
            page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            page.mouse.down()
            for _ in range(4):
                page.mouse.move(
                    box["x"] + rng.uniform(-300, 300), box["y"] + rng.uniform(-300, 300)
                )
            page.mouse.up()
        else:
            control = controls.nth(rng.randrange(count))
            if not control.is_visible() or not control.is_enabled():
                continue
            control.focus()
            page.keyboard.press(rng.choice(KEYS))
        if step % 10 == 9:
            next_frame(page)
            check(page, figure_id, step)
    next_frame(page)
    check(page, figure_id, 100)
