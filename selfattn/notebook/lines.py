"""show_lines's view: one head as lines, as BertViz's head view draws it; the map's widget
(map.py) with another picture (js/lines.js), so the same checks and stepping hold."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from selfattn.notebook.map import AttentionMap, made


def show_lines(
    weights: Any,
    tokens: Any = None,
    *,
    ids: Any = None,
    batch: int | None = None,
    axes: str | None = None,
    causal: bool | None = None,
    title: str | None = None,
    layer: int | None = None,
    head: int | None = None,
    key_tokens: Any = None,
    heads: Sequence[Any] | None = None,
    part: bool = False,
    attention_mask: Any = None,
) -> AttentionMap:
    """One head as lines, as BertViz's head view draws it: queries down the left, keys down
    the right, a line from the query in focus to every key, its width ∝ weight. Hover a
    query (or press ↑ ↓) to move; hover a key to see every query's weight on it. Takes what
    `show_map` takes and opens where it does (the first head that breaks an invariant) unless
    `layer` and `head` say (-1 the last, as Python counts; one layer's heads, which carry no
    layer number, are numbered by `layer`); the same checks run, and `m.layer`, `m.head`,
    `m.row` move it. A rectangular map (cross-attention, a sentence pair) draws its keys,
    `key_tokens`, on the right; `part=True` checks a block of a pair as `show_map` does.
    `heads=[(layer, head), ...]` (up to four) overlays those heads' lines, each in its own
    dash, as BertViz overlays heads in colour. `attention_mask` leaves padding out, as in
    `show_map`.
    """
    given = {"ids": ids, "batch": batch, "axes": axes, "causal": causal, "title": title}
    given["attention_mask"] = attention_mask
    return made(
        weights,
        tokens,
        kind="lines",
        picks=True,
        layer=layer,
        head=head,
        key_tokens=key_tokens,
        heads=heads,
        part=part,
        **given,
    )
