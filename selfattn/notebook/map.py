"""show_map's view: an attention map of any stack of heads, every head checked as it is made,
with a still picture of the head on screen for wherever the widget cannot draw."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import traitlets

from selfattn.notebook import assets, picture, stills, store
from selfattn.notebook.data import floats, full_cell, head_checks, weight_text
from selfattn.notebook.inputs import Reading
from selfattn.notebook.widget import Stepped, keep, labels, prepared, write


class AttentionMap(Stepped):
    """An attention map of any `(n, n)`, `(heads, n, n)` or `(layers, heads, n, n)` array.

    Every head is checked when the map is made: `failed` lists what each head breaks,
    whichever head is on screen, and `broken` tells the picture which heads to point at.
    """

    weights = traitlets.Bytes().tag(sync=True)  # little-endian float32, a binary buffer
    shape = traitlets.List(traitlets.Int()).tag(sync=True)
    causal = traitlets.Bool(False).tag(sync=True)
    scale = traitlets.Float(1.0).tag(sync=True)
    checks = traitlets.List().tag(sync=True)
    broken = traitlets.List().tag(sync=True)

    reading = traitlets.Unicode("").tag(sync=True)  # how the input's axes were read
    # a rectangular map's keys (cross-attention, a sentence pair), as labels and as written
    key_tokens = traitlets.List(traitlets.Unicode()).tag(sync=True)
    key_raw = traitlets.List(traitlets.Unicode()).tag(sync=True)

    def __init__(
        self,
        reading: Reading,
        raw: list[str],
        causal: bool,
        title: str,
        keys: Sequence[str] = (),
        part: bool = False,
        at: tuple[int | None, int | None] = (None, None),
    ) -> None:
        stack = reading.stack
        self._ids = reading.layers or [0]
        self._heads = stack.shape[-3] if stack.ndim >= 3 else 1
        self._stack = stack.reshape(-1, *stack.shape[-2:])  # (layers·heads, n, n)
        self._ndim = stack.ndim
        self._read = reading
        self._dtype = reading.dtype
        self._checks = head_checks(self._stack, causal, reading.dtype, part)
        broken = failing(self._checks, self._ids, self._heads)
        # the map opens where layer=, head= say, else on the first head that breaks an
        # invariant, when one does
        self._asked = at != (None, None)
        first = (broken[0]["layer"], broken[0]["head"]) if broken else (self._ids[0], 0)
        if self._asked:
            first = self._where(at[0] if at[0] is not None else first[0], at[1] or 0)
        named = labels(list(keys))
        super().__init__(
            kind="map",
            **labels(raw),
            key_tokens=named["tokens"],
            key_raw=named["raw"],
            title=title,
            reading=reading.said,
            shape=list(stack.shape),
            layer_ids=self._ids,
            causal=causal,
            broken=broken,
            **self._slice(*first),
        )
        with self.hold_trait_notifications():
            self.layer, self.head = first

    def _slice(self, layer: int, head: int) -> dict[str, Any]:
        """What the picture needs of one head, its weights as float32."""
        w = self._stack[self._at(layer, head)]  # (n, n)
        return {**self._marks(layer, head), "weights": floats(np.nan_to_num(w))}

    def _marks(self, layer: int, head: int) -> dict[str, Any]:
        """What marks a head's picture besides its weights: its checks, a full cell's weight."""
        k = self._at(layer, head)
        return {"checks": self._checks[k], "scale": full_cell(self._stack[k])}

    def _packed(
        self, layer: int, head: int, bits: int, squeeze: bool
    ) -> tuple[dict[str, Any], float, float]:
        """One head as a saved file holds it, and how far packing moved its weights (at
        most, and at most as a fraction of a row's largest weight)."""
        k = self._at(layer, head)
        found = self._checks[k]
        exact = np.ones(len(self.tokens), dtype=bool)
        # rows that sum to 1 are stored summing to exactly 1; a block's rows are left as they are
        sums = [c["rows"] for c in found if c["invariant"] == "rows sum to 1"]
        exact[sums[0] if sums else slice(None)] = False
        weights, error, relative = store.pack(self._stack[k], bits, exact, squeeze)
        return {**self._marks(layer, head), "weights": weights}, error, relative

    def _name(self, layer: int, head: int) -> str:
        return head_name(self._read, layer, head)

    def _broken_name(self, b: dict[str, Any]) -> str:
        """A head that breaks an invariant, and what it breaks, as the printed line lists it."""
        return f"{self._name(b['layer'], b['head'])} ({', '.join(b['invariants'])})"

    def _on_screen(self) -> list[tuple[int, int]]:
        """The heads drawn: the one stepped to (several, side by side or overlaid)."""
        return [(self.layer, self.head)]

    @property
    def failed(self) -> list[str]:
        """Every invariant any head breaks, one message each, naming the head as the array
        passed in indexes it: [] when every head keeps them all.

        >>> m.failed  # doctest: +SKIP
        ['weights[1, 2]: causal: 1 weight above the diagonal: the future leaks']
        """
        return [
            f"{self._name(b['layer'], b['head'])}: {c['invariant']}: {c['message']}"
            for b in self.broken
            for c in self._checks[self._at(b["layer"], b["head"])]
            if not c["ok"]
        ]

    def __repr__(self) -> str:
        """What the map holds and how its input was read: the text a notebook shows where
        it cannot draw the widget, beside the still picture."""
        n = picture.counted(len(self.tokens), len(self.key_tokens or self.tokens))
        count = len(self.broken)
        bad = f"{count} {'head breaks' if count == 1 else 'heads break'} an invariant"
        shape = tuple(self._read.shape or self.shape)  # as passed, every axis the reading names
        showing = ", ".join(self._name(*h) for h in self._on_screen())
        return (
            f"<{type(self).__name__}: {n}, shape {shape} {self.reading}; {bad}; showing {showing}>"
        )

    def _still(self) -> str:
        """The head on screen as a still picture, as the live view draws it first (a map, or
        the lines of its query row), naming what every other head breaks."""
        if self.kind == "lines":
            return self._lines_still()
        if self.kind == "tokens":
            from selfattn.notebook.text import still

            return still(self)
        k = self._at(self.layer, self.head)
        others = [
            f"{self._name(b['layer'], b['head'])} ({', '.join(b['invariants'])})"
            for b in self.broken
            if (b["layer"], b["head"]) != (self.layer, self.head)
        ]
        return picture.still(
            self._stack[k],
            self._checks[k],
            causal=self.causal,
            title=self.title,
            where=self._name(self.layer, self.head) if self._ndim > 2 else "",
            reading=self._read.said,
            elsewhere=f"Heads that break an invariant: {'; '.join(others)}. " if others else "",
            axes=(list(self.tokens), list(self.key_tokens or self.tokens)),
        )

    def _lines_still(self) -> str:
        """The lines of the query row in focus; with heads overlaid (heads=[...]) the first
        of them, every one named (the stepped head, 0, 0, was drawn and named instead)."""
        heads = self._on_screen()
        k = self._at(*heads[0])
        w, row = self._stack[k], self.row
        rgb, shown = stills.lines(w, row, self.causal)
        top = [j for j in np.argsort(-np.nan_to_num(w[row]))[:3] if w[row, j] > 0]
        keys = self.key_tokens or self.tokens
        heaviest = ", ".join(f"{keys[j]} {weight_text(w[row, j])}" for j in top)
        where = f", {self._name(*heads[0])}" if self._ndim > 2 else ""
        if len(heads) > 1:
            where = (
                f", {', '.join(self._name(*h) for h in heads)} overlaid "
                f"(the still draws the first, {self._name(*heads[0])})"
            )
        failing = [self._name(b["layer"], b["head"]) for b in self.broken]
        said = f"Breaking an invariant: {', '.join(failing)}. " if failing else ""
        return picture.figure(
            rgb,
            f"{self.title or 'attention lines'}{where}: query {row} · {self.tokens[row]}, its "
            f"lines to keys {shown[0]}–{shown[-1]} (width ∝ weight); heaviest: {heaviest}. "
            f"{said}{picture.STILL}",
        )

    def save_html(
        self,
        path: str | Path,
        *,
        layers: int | list[int] | None = None,
        heads: int | list[int] | None = None,
        bits: int | None = None,
    ) -> Path:
        """Write the map as one standalone HTML file that opens offline from file:// and
        asks no other origin for anything; returns the path written.

        `layers` and `heads` keep only those (as `m.layer` and `m.head` read them, -1 the last).
        Weights are stored in `bits` (8 or 16; by default 16 up to 256 tokens, where a
        cell's number is printed, and 8 beyond), rows that sum to 1 still do, zeros stay
        zero, and the page says how far a stored weight is at most from yours; each other
        head is gzipped and unpacked in the browser only when shown.
        """
        n = len(self.tokens)
        if bits is not None and (
            type(bits) is bool or not isinstance(bits, int) or bits not in (8, 16)
        ):
            raise ValueError(f"bits must be 8 or 16 (or left out), not {bits!r}")
        bits = bits or (16 if n <= 256 else 8)
        kept = {
            "layer": keep(layers, self._ids, "layer"),
            "head": keep(heads, list(range(self._heads)), "head"),
        }
        store.check_size(len(kept["layer"]) * len(kept["head"]), self._stack.shape[-2:], bits)
        layer = self.layer if self.layer in kept["layer"] else kept["layer"][0]
        head = self.head if self.head in kept["head"] else kept["head"][0]
        slices, error, relative = {}, 0.0, 0.0
        for la in kept["layer"]:
            for h in kept["head"]:
                # the head the page opens on is drawn without waiting for gzip (store.pack)
                squeeze = (la, h) != (layer, head)
                slices[f"{la},{h}"], off, part = self._packed(la, h, bits, squeeze)
                error, relative = max(error, off), max(relative, part)
        shown = slices[f"{layer},{head}"]
        if len(slices) > 1:  # the page unpacks the shown head from its slice: stored once
            shown = {**shown, "weights": ""}
        state = {
            **self._state(),
            **shown,
            "layer": layer,
            "head": head,
            "kept": kept,
            "stored": stored_note(bits, error, relative, self._dtype),
        }
        return write(path, assets.page(state, slices if len(slices) > 1 else {}))


def stored_note(bits: int, error: float, relative: float, dtype: str) -> str:
    """What a saved page says of its stored weights: how far one is at most from the
    notebook's, as a fraction of its row's largest weight (a bound on the whole map's scale
    said nothing of a diffuse row whose weights were all below it) and absolutely."""
    return (
        f"weights stored in {bits} bits relative to each row's largest, each within "
        f"{relative:.2%} of its row's largest weight (at most {error:.2g} from the notebook's, "
        f"{dtype}); rows that sum to 1 still do, zeros stay zero"
    )


def head_name(reading: Reading, layer: int, head: int) -> str:
    """A head as the reader indexes what they passed: weights[layer, head] for an array
    (weights[0, 2] for a batch's sequence 0, head 2), "layer 7, head 2" for a model's
    layers; layers by the numbers the input gave them, heads from 0."""
    axes = reading.axes
    if axes.startswith("l") and axes[1:] in ("bhqk", "hqk") and reading.from_layers:
        return f"layer {layer}, head {head}"
    at = {"l": str(layer), "b": str(reading.batch), "h": str(head), "q": ":", "k": ":"}
    index = [at[a] for a in axes]
    while index and index[-1] == ":":
        index.pop()
    return f"weights[{', '.join(index)}]" if index else "weights"


def failing(found: list[list[dict[str, Any]]], ids: list[int], heads: int) -> list[dict]:
    """Each head whose `checks` fail, layer-major, with the invariants it breaks."""
    return [
        {"layer": ids[k // heads], "head": k % heads, "invariants": names}
        for k, each in enumerate(found)
        if (names := [c["invariant"] for c in each if not c["ok"]])
    ]


def announce(m: Any) -> None:
    """One printed line when any head breaks an invariant, so a failure away from the head
    on screen cannot go unseen: which heads, what they break, and what is on screen (where
    the map opened, or the head layer=, head= asked for, and whether it fails)."""
    if not m.broken:
        return
    total = m._layers * m._heads
    count = len({(b["layer"], b["head"]) for b in m.broken})
    named = [m._broken_name(b) for b in m.broken]
    listed = "; ".join(named[:4]) + (f"; and {len(named) - 4} more" if len(named) > 4 else "")
    shown = m._on_screen()
    bad = {(b["layer"], b["head"]) for b in m.broken}
    where = ", ".join(m._name(*h) for h in shown)
    if not m._asked and len(shown) == 1:
        opened = f"The map opened on {where}; "
    else:
        keeps = (
            ""
            if any(h in bad for h in shown)
            else (
                ", which keeps every invariant"
                if len(shown) == 1
                else ", which keep every invariant"
            )
        )
        opened = f"On screen: {where}{keeps}; "
    print(
        f"selfattn: {count} of {total} {'heads' if total > 1 else 'head'} "
        f"{'breaks' if count == 1 else 'break'} "
        f"an invariant: {listed}. {opened if total > 1 else ''}m.failed says how."
    )


def show_map(
    weights: Any,
    tokens: Any = None,
    *,
    ids: Any = None,
    batch: int | None = None,
    axes: str | None = None,
    causal: bool | None = None,
    title: str | None = None,
    key_tokens: Any = None,
    heads: Sequence[Any] | None = None,
    part: bool = False,
    layer: int | None = None,
    head: int | None = None,
    attention_mask: Any = None,
) -> AttentionMap:
    """An attention map widget, in the article's visual language, that checks its invariants.

    `weights` is `(n, n)`, `(heads, n, n)`, `(layers, heads, n, n)` or one Hugging Face
    layer's `(batch, heads, n, n)`, anything with `__array__`, or what a model returns as it
    returns it: Hugging Face's `outputs.attentions` (a tuple of `(batch, heads, n, n)`, or the
    output itself), a TransformerLens cache (its `blocks.{layer}.attn.hook_pattern`, layers
    keeping their numbers), `(layers, batch, heads, n, n)`. A 4-D array is read as
    `(batch, heads, n, n)` when `batch` is given or its first axis is 1, else as
    `(layers, heads, n, n)`; `axes` names the axes when that is wrong or the order differs:
    l layer, b batch, h head, q query, k key, as `axes="bhqk"`. The title and `repr` say the
    reading taken. `batch` picks one sequence of a batch. `tokens` are strings (a string
    is split by whitespace, with a warning), or a tokenizer with `ids` (or `(tokenizer, ids)`);
    labels show the text a token stands for ("Ġcat" → "cat"), the raw token on hover.
    `causal=None` draws the upper triangle as masked when it is all zero; `causal=True` also
    checks that no weight sits above the diagonal. Rows must sum to 1 within what the dtype
    the weights came in allows (bfloat16 1e-2, float16 2e-3, float32 1e-4, float64 1e-6).
    The map opens on the first head that breaks an invariant, and one line printed names
    every such head; layers and heads are numbered from 0 on screen as in Python. A map need
    not be square: `(…, queries, keys)` for cross-attention (a decoder's queries over an
    encoder's keys) or one sentence of a pair over the other, `key_tokens` labelling the keys
    (as `tokens` labels the queries). For a sentence pair, pass the block where one sentence's
    queries meet the other's keys with `part=True`: its rows are parts of rows, so they are
    checked to sum to at most 1, not to 1. `heads=[(0, 3), (5, 1)]` (or `[3, 1]` for one layer)
    draws those heads side by side instead, the query row in focus shared. One layer's heads
    carry no layer number (TransformerLens's `cache["pattern", 7]`): `layer=7` names it, and
    the heads are drawn as "layer 7, head 2"; without it, no layer is claimed. Otherwise
    `layer` and `head` open the map on that head (-1 the last), as for `show_lines`.
    `attention_mask` (a padded batch's, `(n,)` or `(batch, n)` of 0 and 1 as the tokenizer
    returns it, or the tokenizer's output holding it) leaves the padding out: its queries and
    keys are not drawn, checked or summarised, and the reading says how many were left out.
    """
    given = {"ids": ids, "batch": batch, "axes": axes, "causal": causal, "title": title}
    given["attention_mask"] = attention_mask
    return made(
        weights,
        tokens,
        key_tokens=key_tokens,
        heads=heads,
        part=part,
        layer=layer,
        head=head,
        picks=True,
        **given,
    )


def made(
    weights: Any,
    tokens: Any,
    *,
    kind: str = "map",
    head: int | None = None,
    picks: bool = False,
    ids: Any = None,
    batch: int | None = None,
    axes: str | None = None,
    causal: bool | None = None,
    title: str | None = None,
    key_tokens: Any = None,
    heads: Sequence[Any] | None = None,
    part: bool = False,
    layer: int | None = None,
    attention_mask: Any = None,
) -> AttentionMap:
    """The map's widget drawn as `kind` ("map", "lines", "tokens"): what show_map,
    show_lines and show_tokens share. With `picks`, `layer` and `head` open the view on that
    head (`layer` still numbers one layer's heads that carry no layer number); the printed
    line then says what is on screen."""
    reading, raw, causal, keys = prepared(
        weights, tokens, ids, batch, causal, axes, key_tokens, layer, picks, attention_mask
    )
    at = ((None if reading.named else layer), head) if picks else (None, None)
    if heads is not None:
        from selfattn.notebook.several import SideBySide

        if kind == "lines" and len(heads) > 4:  # five dashes no longer tell apart
            raise ValueError(f"show_lines overlays up to four heads, not {len(heads)}: {heads!r}")

        m = SideBySide(reading, raw, causal, title or "", keys, heads, part)
    else:
        m = AttentionMap(reading, raw, causal, title or "", keys, part, at)
    if kind != "map":
        m.kind = kind
    announce(m)
    return m
