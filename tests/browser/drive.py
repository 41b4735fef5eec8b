"""Driving a figure from a test: set its state, wait for the frame, read its read-outs.

Also what every browser test shares about the figures: which there are (one per module in
js/figures/), what a read-out may never print, how a printed number reads back, and the key
press and click that wait for the redraw.
"""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Locator, Page

import selfattn.site

MODULES = Path(selfattn.site.__file__).parent / "static" / "js" / "figures"
CONTENT = Path(selfattn.site.__file__).parent / "content"
# every figure's id, its slug (the name of its module, long-key.js → long-key), in page order
FIGURES = re.findall(r"\{\{figure ([a-z][a-z0-9-]*)\}\}", (CONTENT / "en.md").read_text("utf-8"))
# the label a reader sees beside each ("F07"), counted from the page order as build.py does
LABELS = {slug: f"F{place + 1:02d}" for place, slug in enumerate(FIGURES)}
SLUGS = {label: slug for slug, label in LABELS.items()}

# what a read-out prints when a number went wrong: NaN, ∞ spelled as JS does, a missing
# value, or an object turned into text
BAD_TEXT = re.compile(r"NaN|undefined|Infinity|null|\[object")

# read-outs that stand empty while what they label is not drawn (drag-input's turn angles, while
# the input has not turned q or v by half a degree and the arcs are hidden)
BLANK_WHILE_HIDDEN = {"drag-input": {"q.turn", "v.turn"}}

# each read-out of a figure as [name, text, drawn], in document order (a JS function of the id)
READ_OUTS_JS = """id => [...document.querySelectorAll(`#${id} [data-readout]`)]
    .map(e => [e.dataset.readout, e.textContent, e.getClientRects().length > 0])"""

# the keys a random drive presses, and the drive itself (random_drive.js, run in the page)
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
DRIVE = (Path(__file__).parent / "random_drive.js").read_text("utf-8")

SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")


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


def check_clean(figure_id: str, shown: list, where: object = "") -> dict[str, str]:
    """Read-outs as READ_OUTS_JS gives them, each printing something and nothing broken;
    returned by name. Blank is allowed only where BLANK_WHILE_HIDDEN says, and not drawn.
    `where` goes into the failure message."""
    for name, text, drawn in shown:
        assert not BAD_TEXT.search(text), f"{figure_id} {name} shows {text!r} {where}"
        if not text.strip():
            allowed = name in BLANK_WHILE_HIDDEN.get(figure_id, ()) and not drawn
            assert allowed, f"{figure_id} {name} is blank {where}"
    return {name: text for name, text, _ in shown}


def clean_readouts(page: Page, figure_id: str, where: object = "") -> dict[str, str]:
    """A figure's read-outs, asserted clean (see check_clean), by name."""
    return check_clean(figure_id, page.evaluate(READ_OUTS_JS, figure_id), where)


def number(text: str) -> float:
    """A printed number back to a float: U+2212 minus, '1.2 × 10⁻¹⁴', and a bound such as
    '<0.01' as half of it (the weight it stands for lies between 0 and the bound)."""
    text = text.replace("\u2212", "-").strip()
    if text.startswith("<"):
        return number(text[1:]) / 2
    if " × 10" in text:
        mantissa, power = text.split(" × 10")
        return float(mantissa) * 10.0 ** int(power.translate(SUPERSCRIPT))
    return float(text)


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
    """Press a key on the one control `selector` names (focusing it), `times` times, each
    press followed by its redraw."""
    control = page.locator(selector)
    for _ in range(times):
        control.press(key)
        next_frame(page)


def click(page: Page, selector: str) -> None:
    """Click the one element `selector` names, then wait for the redraw."""
    page.locator(selector).click()
    next_frame(page)


def settled_click(locator: Locator) -> None:
    """Click `locator` once the page around it has stopped moving. Scrolled to from the top,
    the sections near it are laid out for the first time (content-visibility: auto) and take
    their real heights in the next frames; a press sent meanwhile can land on one element and
    lift on another, which is no click (CI lost a guess that way on a loaded machine)."""
    locator.scroll_into_view_if_needed()
    page = locator.page
    before = None
    for _ in range(20):
        next_frame(page)
        box = locator.bounding_box()
        if box is not None and box == before:
            break
        before = box
    locator.click()
