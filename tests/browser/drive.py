"""Driving a figure from a test: set its state, wait for the frame, read its read-outs."""

from __future__ import annotations

from playwright.sync_api import Page


def next_frame(page: Page) -> None:
    """Wait until batched redraws have painted (two animation frames)."""
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def set_state(page: Page, figure_id: str, partial: dict) -> None:
    page.evaluate(
        "([id, partial]) => document.getElementById(id).figure.set(partial)", [figure_id, partial]
    )
    next_frame(page)


def readouts(page: Page, figure_id: str) -> dict[str, str]:
    """Every data-readout of a figure, by name."""
    return page.evaluate(
        """id => Object.fromEntries([...document.querySelectorAll(`#${id} [data-readout]`)]
            .map(e => [e.dataset.readout, e.textContent]))""",
        figure_id,
    )


def state(page: Page, figure_id: str) -> dict:
    return page.evaluate("id => document.getElementById(id).figure.state", figure_id)
