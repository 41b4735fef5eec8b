"""A still picture of one map, as an image in HTML: what a notebook shows where the widget can't.

The article's encodings, drawn from numpy alone: a square per cell with area ∝ weight (a
shade per cell once cells are too small for squares), the masked triangle washed grey, and a
cell that breaks an invariant red; the tokens label both axes (an SVG round the PNG).
"""

from __future__ import annotations

import base64
import html
import struct
import zlib
from typing import Any

import numpy as np

from selfattn.notebook.data import full_cell

SIDE = 480  # the picture's width in pixels, at most
PAPER, INK, MASKED, WRONG = (253, 252, 248), (31, 35, 40), (232, 233, 235), (196, 48, 43)


def png(rgb: np.ndarray) -> bytes:
    """An (h, w, 3) uint8 array as PNG bytes."""
    h, w, _ = rgb.shape
    rows = np.hstack([np.zeros((h, 1), np.uint8), rgb.reshape(h, w * 3)]).tobytes()

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows, 6))
        + chunk(b"IEND", b"")
    )


def draw(weights: np.ndarray, causal: bool, wrong: list[list[int]], side: int = SIDE) -> np.ndarray:
    """The map as pixels: `cell` pixels a cell, or one pixel for `block` cells (the block's
    largest weight, so a spike never vanishes) when the map is longer than `side`. Queries
    down, keys across: a cross-attention map is as wide as its keys."""
    rows, cols = weights.shape[-2:]
    w = np.nan_to_num(np.abs(weights), nan=0.0, posinf=0.0, neginf=0.0)
    share = np.sqrt(np.minimum(w / full_cell(weights), 1))  # side of a square ∝ √weight
    shape = (rows, cols)
    masked = np.triu(np.ones(shape, bool), k=1) if causal else np.zeros(shape, bool)
    bad = np.zeros(shape, bool)
    for i, j in wrong:
        bad[i, j] = True
    block = -(-max(rows, cols) // side)
    if block > 1:  # pool blocks of cells into one pixel each
        r, c = -(-rows // block) * block, -(-cols // block) * block
        pad = ((0, r - rows), (0, c - cols))

        def pool(a: np.ndarray) -> np.ndarray:
            return np.pad(a, pad).reshape(r // block, block, c // block, block).max(axis=(1, 3))

        share, masked, bad = pool(share), pool(masked) & ~pool(~masked), pool(bad)
        rows, cols = r // block, c // block
    cell = max(1, min(side // max(rows, cols), 40))

    def cells(a: np.ndarray) -> np.ndarray:
        """A per-cell array spread over each cell's cell × cell pixels, without a copy."""
        return np.broadcast_to(a[:, None, :, None], (rows, cell, cols, cell))

    if cell >= 4:  # squares: a pixel is inked when it is inside its cell's square
        offset = np.abs(np.arange(cell) + 0.5 - cell / 2)
        reach = np.maximum.outer(offset, offset)[None, :, None, :]  # distance from the centre
        inside = (share * (cell - 1) / 2)[:, None, :, None] > reach  # (rows, cell, cols, cell)
        # ink is 0 or 1: each pixel is the paper or the ink, as paper·(1 − ink) + ink·ink gives
        ink, washed, blank = (np.array(c, np.uint8) for c in (INK, MASKED, PAPER))
        rgb = np.where(inside[..., None], ink, np.where(cells(masked)[..., None], washed, blank))
    else:  # shades: a cell's darkness ∝ its weight's share
        ink = cells(share)[..., None]
        paper = np.where(cells(masked)[..., None], MASKED, PAPER)
        rgb = (paper * (1 - ink) + np.array(INK) * ink).round().astype(np.uint8)
    rgb = np.where(cells(bad)[..., None], np.array(WRONG, np.uint8), rgb)
    return rgb.reshape(rows * cell, cols * cell, 3)


# A still waits a few seconds before it shows where a style sheet applies (a trusted notebook,
# where the live widget is on its way and hides it as it draws: js/common.js hideStill), so it
# never flashes before the live view; an untrusted notebook, GitHub or nbviewer strip the
# <style> and show it at once. Its class names the view, so each view hides its own.
# Where JupyterLab has already given up on the widget, no live view is on its way, and the
# still shows at once: a trusted notebook saved without widget state showed only "Error
# displaying widget: model not found" for those 5 s, the test's 3 s after the kernel was idle
# included. @jupyter-widgets/jupyterlab-manager's renderer (jupyterlab_widgets 3) puts its
# class jupyter-widgets on the output itself only when it fails (the model not found, or its
# view not made); a view it draws sits inside the output, and "Loading widget..." has no class.
FAILED = ".jp-OutputArea-child:has(> .jp-OutputArea-output.jupyter-widgets)"
WAIT = (
    "<style>@keyframes selfattn-wait {from {max-height: 0; overflow: hidden; margin: 0}}"
    " .selfattn-still {animation: selfattn-wait 0s 5s backwards}"
    f" {FAILED} + .jp-OutputArea-child .selfattn-still {{animation: none}}</style>"
)


def figure(rgb: np.ndarray, caption: str, axes: tuple[list[str], list[str]] | None = None) -> str:
    """HTML holding a picture and its caption, as a notebook output shows it: a PNG, or with
    `axes` (the map's query and key labels) an SVG holding the PNG and the labels round it."""
    said = html.escape(caption)
    if axes is None:
        data = base64.b64encode(png(rgb)).decode("ascii")
        source = f"data:image/png;base64,{data}"
    else:
        data = base64.b64encode(labelled(rgb, *axes).encode("utf-8")).decode("ascii")
        source = f"data:image/svg+xml;base64,{data}"
    return (
        f'{WAIT}<figure class="selfattn-still" style="margin:0">'
        f'<img src="{source}" alt="{said}" '
        f'style="max-width:100%;image-rendering:pixelated">'
        f"<figcaption>{said}</figcaption></figure>"
    )


def hexed(rgb: tuple[int, int, int]) -> str:
    return "#" + "".join(f"{c:02x}" for c in rgb)


LABEL_CHARS, PITCH, MARGIN = 10, 12, 78  # as js/map.js: labels elided past 10, 12 px apart


def every(count: int, pixels: int) -> int:
    """Label every k-th token so labels `pixels` high stand PITCH px apart at least."""
    return max(1, -(-PITCH * count // max(pixels, 1)))


def labelled(rgb: np.ndarray, rows: list[str], cols: list[str]) -> str:
    """The map's pixels as an SVG with its query labels down the left and its key labels
    along the top, stood on end, every k-th when too many to fit (as the live map thins
    them): an `<img>` holds it, so the still reads alone where no script runs. Text in an
    SVG image is drawn in the system's fonts; the pixels are a PNG inside it."""
    h, w, _ = rgb.shape
    data = base64.b64encode(png(rgb)).decode("ascii")

    def short(t: str) -> str:
        return html.escape(t if len(t) <= LABEL_CHARS else t[: LABEL_CHARS - 1] + "…")

    font = f'font-family="sans-serif" font-size="11" fill="{hexed(INK)}"'
    texts = [
        f'<text x="{MARGIN - 4}" y="{MARGIN + (i + 0.5) * h / len(rows):.1f}" '
        f'text-anchor="end" dominant-baseline="central">{short(rows[i])}</text>'
        for i in range(0, len(rows), every(len(rows), h))
    ]
    texts += [
        f'<text transform="translate({MARGIN + (j + 0.5) * w / len(cols):.1f} {MARGIN - 4}) '
        f'rotate(-90)" dominant-baseline="central">{short(cols[j])}</text>'
        for j in range(0, len(cols), every(len(cols), w))
    ]
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w + MARGIN}" height="{h + MARGIN}" '
        f'viewBox="0 0 {w + MARGIN} {h + MARGIN}"><rect width="100%" height="100%" '
        f'fill="{hexed(PAPER)}"/><image x="{MARGIN}" y="{MARGIN}" width="{w}" height="{h}" '
        f'style="image-rendering:pixelated" href="data:image/png;base64,{data}"/>'
        f"<g {font}>{''.join(texts)}</g></svg>"
    )


def counted(queries: int, keys: int) -> str:
    """How many tokens a map holds: "6 tokens" when square, "11 queries × 6 keys" when not
    (cross-attention, a sentence pair), where counting the keys alone miscounted."""
    return f"{keys} tokens" if queries == keys else f"{queries} queries × {keys} keys"


def still(
    weights: np.ndarray,
    found: list[dict[str, Any]],
    *,
    causal: bool,
    title: str,
    where: str,
    elsewhere: str = "",
    reading: str = "",
    axes: tuple[list[str], list[str]] | None = None,
) -> str:
    """HTML holding the map on screen as a picture, with what it is and what it breaks, and
    `elsewhere`, what the heads not shown break; with `axes`, its query and key labels
    drawn round it."""
    wrong = [cell for c in found if not c["ok"] for cell in c["cells"]]
    name = title or f"attention map, {counted(*weights.shape[-2:])}"
    failed = [f"{c['invariant']}: {c['message']}" for c in found if not c["ok"]]
    said = "; ".join(failed) if failed else "keeps every invariant"
    where = f", {where}" if where else ""
    where += f" ({reading})" if reading else ""
    block = -(-max(weights.shape[-2:]) // SIDE)
    pooled = f"Each pixel is the largest weight of {block} × {block} cells. " if block > 1 else ""
    caption = f"{name}{where}: {said}. {pooled}{elsewhere}{STILL}"
    return figure(draw(weights, causal, wrong), caption, axes)


STILL = "A still picture; run the cell for the live view."
