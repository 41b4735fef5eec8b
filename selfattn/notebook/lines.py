"""show_lines's view: one head as lines, as BertViz's head view draws it; the map's widget
(map.py) with another picture (js/lines.js), so the same checks and stepping hold."""

from __future__ import annotations

from typing import Any

from selfattn.notebook.map import AttentionMap, show_map


def show_lines(
    weights: Any,
    tokens: Any = None,
    *,
    ids: Any = None,
    batch: int | None = None,
    causal: bool | None = None,
    title: str | None = None,
    layer: int = 0,
    head: int = 0,
) -> AttentionMap:
    """One head as lines, as BertViz's head view draws it: queries down the left, keys down
    the right, a line from the query in focus to every key, its width ∝ weight. Hover a
    query (or press ↑ ↓) to move; hover a key to see every query's weight on it. Takes what
    `show_map` takes; the same checks run, and `m.layer`, `m.head`, `m.row` move it.
    """
    m = show_map(weights, tokens, ids=ids, batch=batch, causal=causal, title=title)
    with m.hold_sync():
        m.kind = "lines"
        m.layer, m.head = layer, head
    return m
