"""show_tokens's view: the text itself, each token tinted by the weight the query in focus
gives it and the top keys listed (js/tokens.js), as CircuitsVis colours tokens; the map's
widget with another picture, so the same checks, stepping and row hold."""

from __future__ import annotations

from typing import Any

import numpy as np

from selfattn.notebook import picture
from selfattn.notebook.map import AttentionMap, made
from selfattn.notebook.stills import VALUE, canvas

TOP = 5


def tinted(w: np.ndarray) -> np.ndarray:
    """One query's row as a strip of boxes, each tinted ∝ √(weight / most) in the value hue
    (a weight: how much of a value is taken)."""
    most = max(float(np.nanmax(w, initial=0)), 1e-9)
    share = np.sqrt(np.clip(np.nan_to_num(w) / most, 0, 1))
    box, gap = 18, 3
    out = canvas(box + 2 * gap, len(w) * (box + gap) + gap)
    for j, s in enumerate(share):
        x = gap + j * (box + gap)
        paper = out[gap : gap + box, x : x + box].astype(float)
        tint = paper * (1 - 0.55 * s) + np.array(VALUE) * 0.55 * s
        out[gap : gap + box, x : x + box] = tint.astype(np.uint8)
    return out


def still(m: AttentionMap) -> str:
    """The query row as tinted boxes, the top keys in the caption (a PNG has no text)."""
    w = m._stack[m._at(m.layer, m.head)][m.row]
    keys = m.key_tokens or m.tokens
    top = [j for j in np.argsort(-np.nan_to_num(w))[:TOP]]
    listed = ", ".join(f"{keys[j]} {w[j]:.3f}" for j in top)
    where = f", {m._name(m.layer, m.head)}" if m._ndim > 2 else ""
    return picture.figure(
        tinted(w[:60]),
        f"{m.title or 'attention on the text'}{where}: query {m.row} · {m.tokens[m.row]}; "
        f"its top keys: {listed}. {picture.STILL}",
    )


def show_tokens(
    weights: Any,
    tokens: Any = None,
    *,
    row: int = 0,
    layer: int | None = None,
    head: int | None = None,
    **given: Any,
) -> AttentionMap:
    """The text, each token tinted by the weight the query in focus (`row`, -1 the last)
    gives it, and its top keys listed with their weights, as CircuitsVis colours tokens.
    Hover a token to ask it; ↑ ↓ step. Takes what `show_map` takes (`ids`, `batch`, `axes`,
    `causal`, `title`, `key_tokens`, `part`, `attention_mask`) and opens on `layer`, `head`
    as `show_lines` does; the same checks run, and `m.layer`, `m.head`, `m.row` move it."""
    m = made(weights, tokens, kind="tokens", picks=True, layer=layer, head=head, **given)
    n = len(m.tokens)
    if not -n <= row < n:
        raise ValueError(f"row={row}: the map has query rows 0..{n - 1} (or -{n}..-1)")
    m.row = row % n
    return m
