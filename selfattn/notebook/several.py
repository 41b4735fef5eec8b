"""show_map(..., heads=[...])'s view: several heads' maps side by side, one picture each on the
canvas grid, the query row in focus shared by all (js/several.js). Every head is still checked,
as the map's are, and the heads shown that break an invariant say so above their map."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np
import traitlets

from selfattn.notebook import picture, stills
from selfattn.notebook.data import floats, full_cell
from selfattn.notebook.inputs import Reading
from selfattn.notebook.map import AttentionMap


class SideBySide(AttentionMap):
    """The heads asked for, side by side: `picked` lists them as [layer, head]."""

    picked = traitlets.List().tag(sync=True)
    panels = traitlets.Bytes().tag(sync=True)  # (heads shown, queries, keys) float32
    scales = traitlets.List(traitlets.Float()).tag(sync=True)  # a full cell, per head shown

    def __init__(
        self,
        reading: Reading,
        raw: list[str],
        causal: bool,
        title: str,
        keys: Sequence[str],
        heads: Sequence[Any],
        part: bool = False,
    ) -> None:
        super().__init__(reading, raw, causal, title, keys, part)
        self._asked = True  # the heads on screen are the ones asked for
        chosen = [self._pair(h) for h in heads]
        shown = np.stack([np.nan_to_num(self._stack[self._at(la, h)]) for la, h in chosen])
        with self.hold_sync():
            self.kind = "several"
            self.picked = [list(p) for p in chosen]
            self.panels = floats(shown)
            self.scales = [full_cell(w) for w in shown]

    def _pair(self, asked: Any) -> tuple[int, int]:
        """A head asked for as `head` (one layer) or `(layer, head)`, checked against the stack."""
        pair = isinstance(asked, tuple | list) and len(asked) == 2
        if not pair and not isinstance(asked, numbers.Integral):
            raise ValueError(
                f"heads= holds (layer, head) pairs, or heads alone for one layer: not {asked!r}"
            )
        given: Any = asked
        layer, head = (given[0], given[1]) if pair else (self._ids[0], given)
        try:  # -1 the last, as in every view (indices.picked)
            return self._where(layer, head)
        except ValueError as error:
            raise ValueError(f"heads= holds {asked!r}: {error}") from None

    def _on_screen(self) -> list[tuple[int, int]]:
        """Every head drawn, side by side or overlaid: not the stepped head alone."""
        return [(la, h) for la, h in self.picked]

    def _still(self) -> str:
        if self.kind != "several":  # show_lines(..., heads=[...]): the lines' own still
            return super()._still()
        pictures = [
            picture.draw(self._stack[self._at(la, h)], self.causal, [], side=240)
            for la, h in self.picked
        ]
        named = ", ".join(self._name(la, h) for la, h in self.picked)
        return picture.figure(
            stills.side_by_side(pictures),
            f"{self.title or 'attention maps'}: {named}, side by side, left to right. "
            f"{picture.STILL}",
        )
