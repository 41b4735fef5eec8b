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


def plane_to_client(page: Page, figure_id: str, point: list[float]) -> tuple[float, float]:
    """Client pixel coordinates of a plane point in a figure's first plane (its data-frame)."""
    return page.evaluate(
        """([id, [x, y]]) => {
            const svg = document.querySelector(`#${id} svg.plane`);
            const { x0, y1, unit } = JSON.parse(svg.dataset.frame);
            const ctm = svg.getScreenCTM();
            const p = new DOMPoint((x - x0) * unit, (y1 - y) * unit).matrixTransform(ctm);
            return [p.x, p.y];
        }""",
        [figure_id, point],
    )


def drag(page: Page, figure_id: str, handle_selector: str, to: list[float], steps: int = 8) -> None:
    """Drag a handle with the mouse to a plane point, through real pointer events."""
    handle = page.locator(f"#{figure_id} {handle_selector}")
    handle.scroll_into_view_if_needed()
    box = handle.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    x, y = plane_to_client(page, figure_id, to)
    page.mouse.move(x, y, steps=steps)
    page.mouse.up()
    next_frame(page)


def press(page: Page, selector: str, key: str, times: int = 1) -> None:
    """Focus a control and press a key on it, then wait for the redraw."""
    page.focus(selector)
    for _ in range(times):
        page.keyboard.press(key)
    next_frame(page)
