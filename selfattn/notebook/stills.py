"""Still pictures of the views other than the map (picture.py draws the map): every head small
(show_heads), one query's lines (show_lines), two maps and their difference (show_compare),
the query/key plane (show). Each is what its live view shows first, drawn from numpy alone as
a PNG, for wherever the widget cannot draw: an untrusted or stateless reopened notebook,
GitHub, nbviewer. Labels go in the caption: a PNG drawn without a font holds no text.
"""

from __future__ import annotations

import numpy as np

from selfattn.notebook.picture import INK, MASKED, PAPER, WRONG, draw
from selfattn.notebook.summaries import MASKED as MASKED_CODE
from selfattn.notebook.summaries import SHADES

QUERY, KEY, VALUE, RULE = (168, 70, 0), (0, 104, 166), (0, 112, 79), (217, 213, 200)
THUMB = 64  # a small map's side in pixels, as the live view draws it
GAP = 6


def canvas(h: int, w: int) -> np.ndarray:
    return np.broadcast_to(np.array(PAPER, np.uint8), (h, w, 3)).copy()


def heads(codes: np.ndarray, layers: int, heads: int, broken: set[int]) -> np.ndarray:
    """Every head's small map, a row per layer and a column per head, as the live view lays
    them out in layer order: shaded codes (summaries.thumbnails), the masked wash, a red frame
    round a head that breaks an invariant."""
    m = codes.shape[-1]
    scale = max(1, THUMB // m)
    side = m * scale
    step = side + GAP
    out = canvas(layers * step + GAP, heads * step + GAP)
    paper, ink, wash = (np.array(c, np.float32) for c in (PAPER, INK, MASKED))
    for k, code in enumerate(codes):
        share = (np.where(code == MASKED_CODE, 0, code) / SHADES)[..., None]
        rgb = paper * (1 - share) + ink * share
        rgb = np.where((code == MASKED_CODE)[..., None], wash, rgb)
        tile = np.kron(rgb, np.ones((scale, scale, 1))).round().astype(np.uint8)
        y, x = GAP + (k // heads) * step, GAP + (k % heads) * step
        if k in broken:
            out[y - 3 : y + side + 3, x - 3 : x + side + 3] = WRONG
        out[y : y + side, x : x + side] = tile
    return out


def _line(out: np.ndarray, a: tuple[float, float], b: tuple[float, float], width: float) -> None:
    """A straight stroke from a to b (x, y), `width` px wide, in ink, onto `out`."""
    length = int(np.hypot(b[0] - a[0], b[1] - a[1])) + 1
    t = np.linspace(0, 1, length)[:, None]
    points = np.array(a) * (1 - t) + np.array(b) * t
    r = max(0, round(width / 2 - 0.5))
    for dy in range(-r, r + 1):
        for dx in range(-r, r + 1):
            ys = np.clip(np.round(points[:, 1]).astype(int) + dy, 0, out.shape[0] - 1)
            xs = np.clip(np.round(points[:, 0]).astype(int) + dx, 0, out.shape[1] - 1)
            out[ys, xs] = INK


def lines(
    weights: np.ndarray, row: int, causal: bool, window: int = 48
) -> tuple[np.ndarray, range]:
    """One query's lines to every key it sees, width ∝ weight, queries down the left in
    orange and keys down the right in blue, as the live view draws them first; past `window`
    tokens, the tokens around the query. Returns the pixels and the keys drawn."""
    n, nk = weights.shape[-2:]
    size, ksize = min(n, window), min(nk, window)
    lo = min(max(0, row - size // 2), n - size)
    at = row if nk == n else round(row * nk / n)  # a rectangular map: keys of their own
    klo = min(max(0, at - ksize // 2), nk - ksize)
    pitch, left, right = 14, 24, 296
    out = canvas(max(size, ksize) * pitch + 16, right + 24)
    y = lambda i: 8 + i * pitch + pitch / 2  # noqa: E731
    band = int(y(row - lo) - pitch / 2)
    out[band : band + pitch, :] = (np.array(PAPER) * 0.8 + np.array(RULE) * 0.2).astype(np.uint8)
    w = np.nan_to_num(weights[row], nan=0.0)
    for j in range(klo, klo + ksize):
        if w[j] > 0.005 and not (causal and j > row):
            _line(out, (left, y(row - lo)), (right, y(j - klo)), max(1.0, 9 * float(w[j])))
    for k in range(size):
        c = int(y(k))
        out[c - 3 : c + 3, left - 10 : left - 4] = QUERY
    for k in range(ksize):
        c = int(y(k))
        gone = causal and klo + k > row
        out[c - 3 : c + 3, right + 4 : right + 10] = MASKED if gone else KEY
    return out, range(klo, klo + ksize)


def side_by_side(pictures: list[np.ndarray]) -> np.ndarray:
    """Pictures of any heights in a row, GAP px apart, on the paper."""
    h = max(p.shape[0] for p in pictures)
    w = sum(p.shape[1] for p in pictures) + GAP * (len(pictures) - 1)
    out = canvas(h, w)
    x = 0
    for p in pictures:
        out[: p.shape[0], x : x + p.shape[1]] = p
        out[: p.shape[0], [x, x + p.shape[1] - 1]] = RULE  # a frame: where each map ends
        out[[0, p.shape[0] - 1], x : x + p.shape[1]] = RULE
        x += p.shape[1] + GAP
    return out


def compare(
    a: np.ndarray, b: np.ndarray, causal: bool, wrong: tuple[list, list] = ([], [])
) -> np.ndarray:
    """A, B and |B − A| side by side, each a map drawn as the still map is, A's and B's
    `wrong` cells (what their checks list) red as the map draws them."""
    shown = zip((a, b, np.abs(b - a)), (*wrong, []), strict=True)
    return side_by_side([draw(m, causal, cells, side=240) for m, cells in shown])


def plane(q2: np.ndarray, k2: np.ndarray, masked_keys: np.ndarray | None = None) -> np.ndarray:
    """The query/key plane: queries as orange dots, keys as blue ones, the axes through the
    origin (where dot products measure from), scaled so every point fits."""
    side, pad = 320, 14
    points = np.concatenate([q2, k2])
    reach = float(np.abs(points).max(initial=0)) or 1.0
    half = side / 2 - pad

    def at(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return side / 2 + p[:, 0] / reach * half, side / 2 - p[:, 1] / reach * half

    out = canvas(side, side)
    out[side // 2, :] = RULE
    out[:, side // 2] = RULE
    yy, xx = np.mgrid[-4:5, -4:5]
    disc = yy**2 + xx**2 <= 16
    for group, colour in ((k2, KEY), (q2, QUERY)):
        xs, ys = at(group)
        for x, y in zip(np.round(xs).astype(int), np.round(ys).astype(int), strict=True):
            for dy, dx in zip(yy[disc], xx[disc], strict=True):
                if 0 <= y + dy < side and 0 <= x + dx < side:
                    out[y + dy, x + dx] = colour
    return out
