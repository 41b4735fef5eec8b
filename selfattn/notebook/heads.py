"""show_heads's view: every layer × head as a small map, sortable by a summary, over the full
map (map.py) of the head picked."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import traitlets

from selfattn.notebook import picture, stills
from selfattn.notebook.inputs import Reading
from selfattn.notebook.map import AttentionMap, announce
from selfattn.notebook.summaries import summaries as summarise
from selfattn.notebook.summaries import thumbnails
from selfattn.notebook.widget import prepared


class HeadsMap(AttentionMap):
    """Every layer × head as a small map, sortable by a summary; the one picked, in full."""

    thumbs = traitlets.Bytes().tag(sync=True)  # uint8 (heads, side, side) codes
    side = traitlets.Int().tag(sync=True)
    summaries = traitlets.Dict().tag(sync=True)  # name → one number per head, layer-major
    by = traitlets.Unicode("").tag(sync=True)

    def __init__(
        self,
        reading: Reading,
        raw: list[str],
        causal: bool,
        title: str,
        by: str,
        extra: dict[str, Any],
        side: int,
        keys: Sequence[str] = (),
        part: bool = False,
    ) -> None:
        super().__init__(reading, raw, causal, title, keys, part)
        found = summarise(self._stack, extra)
        if by not in found:
            raise ValueError(f"by must be one of {sorted(found)}, not {by!r}")
        codes, m = thumbnails(self._stack, side, causal)
        self._codes = codes
        with self.hold_sync():
            self.kind = "heads"
            self.thumbs = codes.tobytes()
            self.side = m
            self.summaries = {name: [float(v) for v in values] for name, values in found.items()}
            self.by = by

    def _still(self) -> str:
        """Every head small, in layer order, as the live view first lays them out; the
        caption names the heads that break an invariant."""
        broken = {self._at(b["layer"], b["head"]) for b in self.broken}
        rgb = stills.heads(self._codes, self._layers, self._heads, broken)
        failing = "; ".join(
            f"{self._name(b['layer'], b['head'])} ({', '.join(b['invariants'])})"
            for b in self.broken[:8]
        )
        more = f" and {len(self.broken) - 8} more" if len(self.broken) > 8 else ""
        ids = self._ids
        said = (
            f"framed red, breaking an invariant: {failing}{more}"
            if failing
            else "every head keeps every invariant"
        )
        return picture.figure(
            rgb,
            f"{self.title or 'every head'}: {self._layers * self._heads} heads of "
            f"{len(self.tokens)} tokens, a row per layer ({ids[0]}–{ids[-1]}) and a column per "
            f"head (0–{self._heads - 1}), each a block drawn by its largest weight; {said}. "
            f"{picture.STILL}",
        )

    @property
    def table(self) -> dict[str, np.ndarray]:
        """Each summary as a `(layers, heads)` array, as the view sorts by it."""
        return {
            name: np.reshape(values, (self._layers, self._heads))
            for name, values in self.summaries.items()
        }


def show_heads(
    weights: Any,
    tokens: Any = None,
    *,
    ids: Any = None,
    batch: int | None = None,
    axes: str | None = None,
    causal: bool | None = None,
    title: str | None = None,
    by: str | Callable[[np.ndarray], float] = "entropy",
    summaries: dict[str, Callable[[np.ndarray], float]] | None = None,
    side: int = 48,
    key_tokens: Any = None,
    layer: int | None = None,
    part: bool = False,
    attention_mask: Any = None,
) -> HeadsMap:
    """Every layer × head as a small map, sorted by a summary, over the full map of the head
    clicked. Takes what `show_map` takes. `by` is "entropy", "largest weight", "first
    token", "previous token", a name in `summaries`, or a function of one `(n, n)` head;
    `summaries` adds the reader's own, each a function of one head. Summaries are means over
    query rows, computed here in numpy (`m.table` has them as `(layers, heads)` arrays);
    each small map is at most `side` blocks wide, a block drawn by its largest weight.
    `layer` numbers one layer's heads that carry no layer number, and `part=True` checks a
    block of a sentence pair (rows summing to at most 1), and `attention_mask` leaves a
    padded batch's padding out, as in `show_map`.
    """
    extra = dict(summaries or {})
    chosen = by if isinstance(by, str) else getattr(by, "__name__", "yours")
    if not isinstance(by, str):
        extra[chosen] = by
    reading, raw, causal, keys = prepared(
        weights, tokens, ids, batch, causal, axes, key_tokens, layer, False, attention_mask
    )
    m = HeadsMap(reading, raw, causal, title or "", chosen, extra, side, keys, part)
    announce(m)
    return m
