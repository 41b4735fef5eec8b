"""A randomized drive of every figure: thousands of key presses and drags, nothing breaks."""

from __future__ import annotations

import random

import pytest

from .drive import FIGURES, clean_readouts, next_frame, number, state

TOKENS = ["the", "cat", "ate", "and", "it", "ran"]
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


def check(page, figure_id: str, step: int) -> None:
    """Every read-out printable, and the invariants of attention wherever a figure shows them."""
    shown = clean_readouts(page, figure_id, f"at step {step}")
    where = (figure_id, step, shown)
    if "sum" in shown and not shown["sum"].startswith("["):  # a row of weights sums to one
        assert abs(number(shown["sum"]) - 1) < 1e-9, where
    if "inside" in shown:  # a convex mix cannot leave the values' polygon
        assert shown["inside"] in ("yes", "是"), where
    if figure_id == "F19" and not state(page, "F19")["multiply"]:
        assert number(shown["masked.all"]) == 0, where  # −∞ leaves exactly nothing
    if figure_id == "F25":
        causal = state(page, "F25")["causal"]
        for i, query in enumerate(TOKENS):
            row = [number(shown[f"W.{query}.{key}"]) for key in TOKENS]
            assert all(w >= 0 for w in row) and abs(sum(row) - 1) < 0.04, where
            if causal:
                assert all(w == 0 for w in row[i + 1 :]), where  # masked weights exactly zero


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
