"""show_map's view: an attention map of any stack of heads, every head checked as it is made,
with a still picture of the head on screen for wherever the widget cannot draw."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import traitlets

from selfattn.notebook import assets, picture, store
from selfattn.notebook.data import TOLERANCE, checks, floats, full_cell
from selfattn.notebook.widget import Stepped, kept_indices, labels, prepared, write


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

    def __init__(
        self, stack: np.ndarray, raw: list[str], causal: bool, title: str, dtype: str
    ) -> None:
        self._layers = stack.shape[0] if stack.ndim == 4 else 1
        self._heads = stack.shape[-3] if stack.ndim >= 3 else 1
        self._stack = stack.reshape(-1, *stack.shape[-2:])  # (layers·heads, n, n)
        self._ndim = stack.ndim
        self._dtype = dtype
        tolerance = TOLERANCE.get(dtype, TOLERANCE["float64"])
        self._checks = [checks(w, causal, tolerance) for w in self._stack]
        broken = [
            {"layer": k // self._heads, "head": k % self._heads, "invariants": names}
            for k, found in enumerate(self._checks)
            if (names := [c["invariant"] for c in found if not c["ok"]])
        ]
        super().__init__(
            kind="map",
            **labels(raw),
            title=title,
            shape=list(stack.shape),
            causal=causal,
            broken=broken,
            **self._slice(0, 0),
        )

    def _slice(self, layer: int, head: int) -> dict[str, Any]:
        """What the picture needs of one head, its weights as float32."""
        w = self._stack[layer * self._heads + head]  # (n, n)
        return {**self._marks(layer, head), "weights": floats(np.nan_to_num(w))}

    def _marks(self, layer: int, head: int) -> dict[str, Any]:
        """What marks a head's picture besides its weights: its checks, a full cell's weight."""
        w = self._stack[layer * self._heads + head]
        return {"checks": self._checks[layer * self._heads + head], "scale": full_cell(w)}

    def _packed(
        self, layer: int, head: int, bits: int, squeeze: bool
    ) -> tuple[dict[str, Any], float]:
        """One head as a saved file holds it, and how far packing moved its weights."""
        found = self._checks[layer * self._heads + head]
        exact = np.ones(len(self.tokens), dtype=bool)
        exact[next(c["rows"] for c in found if c["invariant"] == "rows sum to 1")] = False
        weights, error = store.pack(self._stack[layer * self._heads + head], bits, exact, squeeze)
        return {**self._marks(layer, head), "weights": weights}, error

    def _name(self, layer: int, head: int) -> str:
        """A head as the reader indexes the array they passed: weights[layer, head]."""
        return ["weights", f"weights[{head}]", f"weights[{layer}, {head}]"][self._ndim - 2]

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
            for c in self._checks[b["layer"] * self._heads + b["head"]]
            if not c["ok"]
        ]

    def _ipython_display_(self) -> None:
        """The widget, then a still picture of the map as an output of its own. A notebook
        reopened without the widget's state shows "Error displaying widget" in JupyterLab
        rather than any other part of the widget's output, so the picture stands apart:
        GitHub, nbviewer, an untrusted or stateless reopened notebook show it, and the live
        widget hides it (map.js)."""
        from IPython.display import display

        bundle = self._repr_mimebundle_()
        if bundle is not None:
            display(bundle[0], metadata=bundle[1], raw=True)
        display({"text/html": self._still()}, raw=True)

    def _still(self) -> str:
        """The map on screen as a still picture, naming what every other head breaks."""
        k = self.layer * self._heads + self.head
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
            elsewhere=f"Heads that break an invariant: {'; '.join(others)}. " if others else "",
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

        `layers` and `heads` keep only those (indices, as for `m.layer` and `m.head`).
        Weights are stored in `bits` (8 or 16; by default 16 up to 256 tokens, where a
        cell's number is printed, and 8 beyond), rows that sum to 1 still do, zeros stay
        zero, and the page says how far a stored weight is at most from yours; each other
        head is gzipped and unpacked in the browser only when shown.
        """
        n = len(self.tokens)
        bits = bits or (16 if n <= 256 else 8)
        kept = {
            "layer": kept_indices(layers, self._layers, "layer"),
            "head": kept_indices(heads, self._heads, "head"),
        }
        layer = self.layer if self.layer in kept["layer"] else kept["layer"][0]
        head = self.head if self.head in kept["head"] else kept["head"][0]
        slices, error = {}, 0.0
        for la in kept["layer"]:
            for h in kept["head"]:
                # the head the page opens on is drawn without waiting for gzip (store.pack)
                squeeze = (la, h) != (layer, head)
                slices[f"{la},{h}"], off = self._packed(la, h, bits, squeeze)
                error = max(error, off)
        shown = slices[f"{layer},{head}"]
        if len(slices) > 1:  # the page unpacks the shown head from its slice: stored once
            shown = {**shown, "weights": ""}
        state = {
            **self._state(),
            **shown,
            "layer": layer,
            "head": head,
            "kept": kept,
            "stored": (
                f"weights stored in {bits} bits, each at most {error:.2g} from the notebook's "
                f"({self._dtype}); rows that sum to 1 still do, zeros stay zero"
            ),
        }
        return write(path, assets.page(state, slices if len(slices) > 1 else {}))


def show_map(
    weights: Any,
    tokens: Any = None,
    *,
    ids: Any = None,
    batch: int | None = None,
    causal: bool | None = None,
    title: str | None = None,
) -> AttentionMap:
    """An attention map widget, in the article's visual language, that checks its invariants.

    `weights` is `(n, n)`, `(heads, n, n)` or `(layers, heads, n, n)`, anything with
    `__array__`, or what a model returns as it returns it: Hugging Face's
    `outputs.attentions` (a tuple of `(batch, heads, n, n)`, or the output itself), a
    TransformerLens cache (its `blocks.{layer}.attn.hook_pattern`), `(layers, batch, heads,
    n, n)`; `batch` picks one sequence of a batch. `tokens` are strings, or a tokenizer with
    `ids` (or `(tokenizer, ids)`); labels show the text a token stands for ("Ġcat" → "cat"),
    the raw token on hover. `causal=None` draws the upper triangle as masked when it is all zero;
    `causal=True` also checks that no weight sits above the diagonal. Rows must sum to 1
    within what the dtype the weights came in allows (bfloat16 1e-2, float16 2e-3,
    float32 1e-4, float64 1e-6).
    """
    stack, raw, causal, dtype = prepared(weights, tokens, ids, batch, causal)
    return AttentionMap(stack, raw, causal, title or "", dtype)
