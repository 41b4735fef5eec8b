"""show_compare's view: two maps of the same shape side by side and their difference B − A."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import traitlets

from selfattn.notebook import assets, picture, stills
from selfattn.notebook.data import floats, full_cell, head_checks
from selfattn.notebook.inputs import Reading
from selfattn.notebook.map import announce, failing, head_name
from selfattn.notebook.tokens import readable, visible
from selfattn.notebook.widget import Stepped, keep, labels, prepared, write


class Compare(Stepped):
    """Two maps of the same shape side by side, and their difference B − A, head by head.

    Both are checked as `show_map` checks a map: `failed` lists what each head of either
    breaks, the view opens on the first such head, and its wrong cells are drawn as the map
    draws them."""

    names = traitlets.List(traitlets.Unicode()).tag(sync=True)
    shape = traitlets.List(traitlets.Int()).tag(sync=True)
    causal = traitlets.Bool(False).tag(sync=True)
    weights_a = traitlets.Bytes().tag(sync=True)
    weights_b = traitlets.Bytes().tag(sync=True)
    diff = traitlets.Bytes().tag(sync=True)
    scale = traitlets.Float(1.0).tag(sync=True)  # a full cell in A and B alike
    dscale = traitlets.Float(1.0).tag(sync=True)  # a full cell of the difference
    largest = traitlets.Dict().tag(sync=True)  # the largest |B − A| of the head shown
    differ = traitlets.List().tag(sync=True)  # every head's largest |B − A|, layer-major
    # a rectangular map's keys (cross-attention, a sentence pair), as labels and as written
    key_tokens = traitlets.List(traitlets.Unicode()).tag(sync=True)
    key_raw = traitlets.List(traitlets.Unicode()).tag(sync=True)
    checks_a = traitlets.List().tag(sync=True)  # the head shown's checks, in A and in B
    checks_b = traitlets.List().tag(sync=True)
    broken = traitlets.List().tag(sync=True)  # every head that fails, "map" 0 for A, 1 for B

    @traitlets.validate("names")
    def _clean_names(self, proposal: Any) -> list[str]:
        """The maps' names shown as the title is (`Widget._clean_title`): escapes for what
        would reverse the heading or draw a box."""
        return [visible(str(name)) for name in proposal["value"]]

    def __init__(
        self,
        read_a: Reading,
        read_b: Reading,
        raw: list[str],
        causal: bool,
        names: list[str],
        keys: Sequence[str] = (),
        part: bool = False,
    ) -> None:
        a, b = read_a.stack, read_b.stack
        self._read = read_a
        self._ids = read_a.layers or [0]
        self._heads = a.shape[-3] if a.ndim >= 3 else 1
        self._a = a.reshape(-1, *a.shape[-2:])
        self._b = b.reshape(-1, *b.shape[-2:])
        self._checks = [
            head_checks(self._a, causal, read_a.dtype, part),
            head_checks(self._b, causal, read_b.dtype, part),
        ]
        broken = sorted(
            (
                {**found, "map": k}
                for k, each in enumerate(self._checks)
                for found in failing(each, self._ids, self._heads)
            ),
            key=lambda f: (self._at(f["layer"], f["head"]), f["map"]),
        )
        self._asked = False
        first = (broken[0]["layer"], broken[0]["head"]) if broken else (self._ids[0], 0)
        gap = np.abs(np.nan_to_num(self._b) - np.nan_to_num(self._a))
        named = labels(list(keys))
        super().__init__(
            kind="compare",
            **labels(raw),
            key_tokens=named["tokens"],
            key_raw=named["raw"],
            names=names,
            shape=list(a.shape),
            causal=causal,
            differ=[float(g.max(initial=0)) for g in gap],
            layer_ids=self._ids,
            broken=broken,
            **self._slice(*first),
        )
        with self.hold_trait_notifications():
            self.layer, self.head = first

    def _name(self, layer: int, head: int) -> str:
        return head_name(self._read, layer, head)

    def _broken_name(self, b: dict[str, Any]) -> str:
        where = self._name(b["layer"], b["head"])
        return f"{self.names[b['map']]} {where} ({', '.join(b['invariants'])})"

    def _on_screen(self) -> list[tuple[int, int]]:
        return [(self.layer, self.head)]

    def _wrong(self, which: int, k: int) -> list[list[int]]:
        """The cells of head `k` of A (0) or B (1) that break an invariant."""
        return [cell for c in self._checks[which][k] if not c["ok"] for cell in c["cells"]]

    def __repr__(self) -> str:
        count = len({(b["layer"], b["head"]) for b in self.broken})
        bad = f"; {count} {'head breaks' if count == 1 else 'heads break'} an invariant"
        return f"{super().__repr__()[:-1]}{bad if count else ''}>"

    @property
    def failed(self) -> list[str]:
        """Every invariant any head of A or B breaks, one message each, the map named first:
        [] when both keep them all.

        >>> m.failed  # doctest: +SKIP
        ['B weights[1, 2]: causal: 1 weight above the diagonal: the future leaks']
        """
        return [
            f"{self.names[b['map']]} {self._name(b['layer'], b['head'])}: "
            f"{c['invariant']}: {c['message']}"
            for b in self.broken
            for c in self._checks[b["map"]][self._at(b["layer"], b["head"])]
            if not c["ok"]
        ]

    def _slice(self, layer: int, head: int) -> dict[str, Any]:
        """What the picture needs of one head: both maps and B − A as float32, their scales."""
        k = self._at(layer, head)
        a, b = np.nan_to_num(self._a[k]), np.nan_to_num(self._b[k])
        d = b - a
        i, j = np.unravel_index(int(np.argmax(np.abs(d))), d.shape)
        return {
            "weights_a": floats(a),
            "weights_b": floats(b),
            "diff": floats(d),
            "scale": max(full_cell(a), full_cell(b)),
            "dscale": full_cell(d) if np.any(d) else 1.0,
            "largest": {"row": int(i), "column": int(j), "value": float(d[i, j])},
            "checks_a": self._checks[0][k],
            "checks_b": self._checks[1][k],
        }

    def _still(self) -> str:
        """A, B and |B − A| of the head on screen, side by side."""
        k = self._at(self.layer, self.head)
        a, b = np.nan_to_num(self._a[k]), np.nan_to_num(self._b[k])
        at = {4: f"layer {self.layer}, head {self.head}", 3: f"head {self.head}"}
        where = f" at {at[len(self.shape)]}" if len(self.shape) in at else ""
        big = self.largest
        failing = [self._broken_name(b) for b in self.broken[:8]]
        said = f"Breaking an invariant: {'; '.join(failing)}. " if failing else ""
        keys = self.key_tokens or self.tokens  # a rectangular map's keys are not its queries
        size = picture.counted(len(self.tokens), len(keys))
        a_name, b_name = self.names
        return picture.figure(
            stills.compare(a, b, self.causal, (self._wrong(0, k), self._wrong(1, k))),
            f"{a_name}, {b_name} and |{b_name} − {a_name}|{where} for {size}; the largest "
            f"|{b_name} − {a_name}| is at {big['row']} · {self.tokens[big['row']]} → "
            f"{big['column']} · {keys[big['column']]}, where {b_name} − {a_name} = "
            f"{big['value']:+.3f}. {said}{picture.STILL}",
        )

    def save_html(
        self,
        path: str | Path,
        *,
        layers: int | list[int] | None = None,
        heads: int | list[int] | None = None,
    ) -> Path:
        """One standalone HTML file of the heads kept (all of them by default), float32."""
        kept = {
            "layer": keep(layers, self._ids, "layer"),
            "head": keep(heads, list(range(self._heads)), "head"),
        }
        slices = {f"{la},{h}": self._slice(la, h) for la in kept["layer"] for h in kept["head"]}
        layer = self.layer if self.layer in kept["layer"] else kept["layer"][0]
        head = self.head if self.head in kept["head"] else kept["head"][0]
        state = {**self._state(), **slices[f"{layer},{head}"], "layer": layer, "head": head}
        return write(path, assets.page({**state, "kept": kept}, slices if len(slices) > 1 else {}))


def show_compare(
    a: Any,
    b: Any,
    tokens: Any = None,
    *,
    ids: Any = None,
    tokens_b: Any = None,
    ids_b: Any = None,
    batch: int | None = None,
    axes: str | None = None,
    names: tuple[str, str] = ("A", "B"),
    causal: bool | None = None,
    key_tokens: Any = None,
    layer: int | None = None,
    part: bool = False,
    attention_mask: Any = None,
) -> Compare:
    """Two maps side by side and their difference B − A (filled where B is larger, hollow
    where A is), for two models, two inputs of the same length, or before and after a
    change. `a` and `b` take whatever `show_map` takes and must come to the same shape;
    `tokens_b` (or a tokenizer with `ids_b`) labels B's input where it differs from A's.
    A rectangular map, `(…, queries, keys)` (cross-attention, one sentence of a pair over the
    other), has its keys labelled by `key_tokens`, as `show_map` does, and its queries by
    `tokens`. `layer` numbers one layer's heads that carry no layer number, and `part=True`
    checks blocks of a sentence pair, as in `show_map`. Both maps are checked as `show_map`
    checks one: the view opens on the first head of either that breaks an invariant, one
    printed line names them, `m.failed` says how, and their wrong cells are drawn red.
    `attention_mask` leaves a padded batch's padding out of both, as in `show_map`.
    """
    mask = attention_mask
    read_a, raw, causal_a, keys = prepared(
        a, tokens, ids, batch, causal, axes, key_tokens, layer, False, mask
    )
    read_b, raw_b, causal_b, _ = prepared(
        b,
        tokens_b if tokens_b is not None else tokens,
        ids_b if tokens_b is not None else ids,
        batch,
        causal,
        axes,
        key_tokens,
        layer,
        False,
        mask,
    )
    stack_a, stack_b = read_a.stack, read_b.stack
    if stack_a.shape != stack_b.shape:
        raise ValueError(f"the two maps differ in shape: {stack_a.shape} and {stack_b.shape}")
    shown = readable(raw)
    both = [x if x == y else f"{x}/{y}" for x, y in zip(shown, readable(raw_b), strict=True)]
    merged = both if both != shown else raw
    m = Compare(read_a, read_b, merged, causal_a and causal_b, list(names), keys, part)
    announce(m)
    return m
