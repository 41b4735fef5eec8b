"""The article's figures on your own model's attention, as notebook widgets (`selfattn[notebook]`).

>>> from selfattn.notebook import show_map, show
>>> m = show_map(weights, tokens, causal=True)  # doctest: +SKIP
>>> m.row  # the query row the reader picked in the browser  # doctest: +SKIP
>>> m.failed  # every head that breaks an invariant, and what it breaks  # doctest: +SKIP
>>> m.save_html("map.html", layers=[0, 11])  # one file, works offline  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from selfattn.notebook import assets, picture, store
from selfattn.notebook.data import (
    TOLERANCE,
    as_array,
    attention_weights,
    checks,
    floats,
    full_cell,
    looks_causal,
    projection,
)
from selfattn.notebook.inputs import attention_stack, token_strings
from selfattn.notebook.summaries import summaries as summarise
from selfattn.notebook.summaries import thumbnails
from selfattn.notebook.tokens import readable

try:
    import anywidget
    import traitlets
except ImportError as error:  # pragma: no cover - the extra is missing
    raise ImportError(
        "selfattn.notebook needs the notebook extra: pip install 'selfattn[notebook]'"
    ) from error

__all__ = [
    "AttentionMap",
    "Compare",
    "HeadView",
    "HeadsMap",
    "show",
    "show_compare",
    "show_heads",
    "show_layer",
    "show_lines",
    "show_map",
]


class _Widget(anywidget.AnyWidget):
    """What both widgets share: the bundle, the scoped styles, the row, and save_html."""

    _esm = traitlets.Unicode(assets.esm()).tag(sync=True)
    kind = traitlets.Unicode().tag(sync=True)
    css = traitlets.Unicode(assets.css()).tag(sync=True)
    tokens = traitlets.List(traitlets.Unicode()).tag(sync=True)
    # the tokens as the tokenizer wrote them ("Ġcat"), shown on hover; [] when every label
    # reads as its token does
    raw = traitlets.List(traitlets.Unicode()).tag(sync=True)
    title = traitlets.Unicode("").tag(sync=True)
    row = traitlets.Int(0).tag(sync=True)

    @traitlets.validate("row")
    def _clamp_row(self, proposal: Any) -> int:
        return min(max(int(proposal["value"]), 0), max(len(self.tokens) - 1, 0))

    def _state(self) -> dict[str, Any]:
        names = [
            name
            for cls in type(self).__mro__
            if isinstance(cls, type) and issubclass(cls, _Widget)
            for name in cls.class_own_traits(sync=True)
            if not name.startswith("_") and name != "css"
        ]
        return {name: getattr(self, name) for name in names}

    def save_html(self, path: str | Path) -> Path:
        """Write the widget as one standalone HTML file: it opens offline, from file://,
        and asks no other origin for anything. Returns the path written."""
        return _write(path, assets.page(self._state()))


def _write(path: str | Path, text: str) -> Path:
    path = Path(path)
    path.write_text(text, encoding="utf-8")
    return path


def _kept(asked: Any, count: int, axis: str) -> list[int]:
    """The indices save_html keeps on one axis: all of them, or the ones asked for."""
    if asked is None:
        return list(range(count))
    kept = sorted({int(i) for i in ([asked] if isinstance(asked, int) else asked)})
    if not kept or kept[0] < 0 or kept[-1] >= count:
        raise ValueError(f"{axis}s to keep must be among 0..{count - 1}, not {asked!r}")
    return kept


class _Stepped(_Widget):
    """A widget over a stack of heads, one (layer, head) on screen: stepping clamps to the
    stack and sends that head's slice (`_slice`, each subclass's own)."""

    layer = traitlets.Int(0).tag(sync=True)
    head = traitlets.Int(0).tag(sync=True)
    _layers = 1
    _heads = 1

    def _slice(self, layer: int, head: int) -> dict[str, Any]:
        raise NotImplementedError

    @traitlets.validate("layer")
    def _clamp_layer(self, proposal: Any) -> int:
        return min(max(int(proposal["value"]), 0), self._layers - 1)

    @traitlets.validate("head")
    def _clamp_head(self, proposal: Any) -> int:
        return min(max(int(proposal["value"]), 0), self._heads - 1)

    @traitlets.observe("layer", "head")
    def _show_slice(self, _: Any) -> None:
        with self.hold_sync():
            for name, value in self._slice(self.layer, self.head).items():
                setattr(self, name, value)


class AttentionMap(_Stepped):
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
            **_labels(raw),
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
            "layer": _kept(layers, self._layers, "layer"),
            "head": _kept(heads, self._heads, "head"),
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
        return _write(path, assets.page(state, slices if len(slices) > 1 else {}))


class HeadsMap(AttentionMap):
    """Every layer × head as a small map, sortable by a summary; the one picked, in full."""

    thumbs = traitlets.Bytes().tag(sync=True)  # uint8 (heads, side, side) codes
    side = traitlets.Int().tag(sync=True)
    summaries = traitlets.Dict().tag(sync=True)  # name → one number per head, layer-major
    by = traitlets.Unicode("").tag(sync=True)

    def __init__(
        self,
        stack: np.ndarray,
        raw: list[str],
        causal: bool,
        title: str,
        dtype: str,
        by: str,
        extra: dict[str, Any],
        side: int,
    ) -> None:
        super().__init__(stack, raw, causal, title, dtype)
        found = summarise(self._stack, extra)
        if by not in found:
            raise ValueError(f"by must be one of {sorted(found)}, not {by!r}")
        codes, m = thumbnails(self._stack, side, causal)
        with self.hold_sync():
            self.kind = "heads"
            self.thumbs = codes.tobytes()
            self.side = m
            self.summaries = {name: [float(v) for v in values] for name, values in found.items()}
            self.by = by

    @property
    def table(self) -> dict[str, np.ndarray]:
        """Each summary as a `(layers, heads)` array, as the view sorts by it."""
        return {
            name: np.reshape(values, (self._layers, self._heads))
            for name, values in self.summaries.items()
        }


class Compare(_Stepped):
    """Two maps of the same shape side by side, and their difference B − A, head by head."""

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

    def __init__(
        self, a: np.ndarray, b: np.ndarray, raw: list[str], causal: bool, names: list[str]
    ) -> None:
        self._layers = a.shape[0] if a.ndim == 4 else 1
        self._heads = a.shape[-3] if a.ndim >= 3 else 1
        self._a = a.reshape(-1, *a.shape[-2:])
        self._b = b.reshape(-1, *b.shape[-2:])
        gap = np.abs(np.nan_to_num(self._b) - np.nan_to_num(self._a))
        super().__init__(
            kind="compare",
            **_labels(raw),
            names=names,
            shape=list(a.shape),
            causal=causal,
            differ=[float(g.max(initial=0)) for g in gap],
            **self._slice(0, 0),
        )

    def _slice(self, layer: int, head: int) -> dict[str, Any]:
        """What the picture needs of one head: both maps and B − A as float32, their scales."""
        k = layer * self._heads + head
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
        }

    def save_html(
        self,
        path: str | Path,
        *,
        layers: int | list[int] | None = None,
        heads: int | list[int] | None = None,
    ) -> Path:
        """One standalone HTML file of the heads kept (all of them by default), float32."""
        kept = {
            "layer": _kept(layers, self._layers, "layer"),
            "head": _kept(heads, self._heads, "head"),
        }
        slices = {f"{la},{h}": self._slice(la, h) for la in kept["layer"] for h in kept["head"]}
        layer = self.layer if self.layer in kept["layer"] else kept["layer"][0]
        head = self.head if self.head in kept["head"] else kept["head"][0]
        state = {**self._state(), **slices[f"{layer},{head}"], "layer": layer, "head": head}
        return _write(path, assets.page({**state, "kept": kept}, slices if len(slices) > 1 else {}))


class HeadView(_Widget):
    """One head's queries, keys and values: the query/key plane and the weighted sum."""

    weights = traitlets.Bytes().tag(sync=True)
    mask = traitlets.Unicode("").tag(sync=True)
    q2 = traitlets.List().tag(sync=True)
    k2 = traitlets.List().tag(sync=True)
    v2 = traitlets.List().tag(sync=True)
    d = traitlets.Int(2).tag(sync=True)
    dv = traitlets.Int(2).tag(sync=True)
    qk_kept = traitlets.Float(1.0).tag(sync=True)
    v_kept = traitlets.Float(1.0).tag(sync=True)


def _labels(raw: list[str]) -> dict[str, list[str]]:
    """The tokens as labels, and the raw tokens when any label differs from its token."""
    shown = readable(raw)
    return {"tokens": shown, "raw": raw if shown != raw else []}


def _prepared(
    weights: Any, tokens: Any, ids: Any, batch: int | None, causal: bool | None
) -> tuple[np.ndarray, list[str], bool, str]:
    """What a map is made of: the stack, the raw tokens, whether it is causal, the dtype."""
    stack, dtype = attention_stack(weights, batch)
    if stack.ndim not in (2, 3, 4) or stack.shape[-1] != stack.shape[-2]:
        raise ValueError(
            f"weights must be (n, n), (heads, n, n) or (layers, heads, n, n), not {stack.shape}"
        )
    n = stack.shape[-1]
    raw = token_strings(tokens, ids, batch) or [str(i) for i in range(n)]
    if len(raw) != n:
        raise ValueError(f"{len(raw)} tokens for a map of {n} keys")
    if causal is None:
        causal = all(looks_causal(w) for w in stack.reshape(-1, n, n))
    return stack, raw, bool(causal), dtype


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
    stack, raw, causal, dtype = _prepared(weights, tokens, ids, batch, causal)
    return AttentionMap(stack, raw, causal, title or "", dtype)


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


def show_heads(
    weights: Any,
    tokens: Any = None,
    *,
    ids: Any = None,
    batch: int | None = None,
    causal: bool | None = None,
    title: str | None = None,
    by: str | Callable[[np.ndarray], float] = "entropy",
    summaries: dict[str, Callable[[np.ndarray], float]] | None = None,
    side: int = 48,
) -> HeadsMap:
    """Every layer × head as a small map, sorted by a summary, over the full map of the head
    clicked. Takes what `show_map` takes. `by` is "entropy", "largest weight", "first
    token", "previous token", a name in `summaries`, or a function of one `(n, n)` head;
    `summaries` adds the reader's own, each a function of one head. Summaries are means over
    query rows, computed here in numpy (`m.table` has them as `(layers, heads)` arrays);
    each small map is at most `side` blocks wide, a block drawn by its largest weight.
    """
    extra = dict(summaries or {})
    chosen = by if isinstance(by, str) else getattr(by, "__name__", "yours")
    if not isinstance(by, str):
        extra[chosen] = by
    stack, raw, causal, dtype = _prepared(weights, tokens, ids, batch, causal)
    return HeadsMap(stack, raw, causal, title or "", dtype, chosen, extra, side)


def show_compare(
    a: Any,
    b: Any,
    tokens: Any = None,
    *,
    ids: Any = None,
    tokens_b: Any = None,
    ids_b: Any = None,
    batch: int | None = None,
    names: tuple[str, str] = ("A", "B"),
    causal: bool | None = None,
) -> Compare:
    """Two maps side by side and their difference B − A (filled where B is larger, hollow
    where A is), for two models, two inputs of the same length, or before and after a
    change. `a` and `b` take whatever `show_map` takes and must come to the same shape;
    `tokens_b` (or a tokenizer with `ids_b`) labels B's input where it differs from A's.
    """
    stack_a, raw, causal_a, _ = _prepared(a, tokens, ids, batch, causal)
    stack_b, raw_b, causal_b, _ = _prepared(
        b,
        tokens_b if tokens_b is not None else tokens,
        ids_b if tokens_b is not None else ids,
        batch,
        causal,
    )
    if stack_a.shape != stack_b.shape:
        raise ValueError(f"the two maps differ in shape: {stack_a.shape} and {stack_b.shape}")
    shown = readable(raw)
    both = [x if x == y else f"{x}/{y}" for x, y in zip(shown, readable(raw_b), strict=True)]
    merged = both if both != shown else raw
    return Compare(stack_a, stack_b, merged, causal_a and causal_b, list(names))


def show(
    q: Any, k: Any, v: Any, *, tokens: Any, mask: Any = None, title: str | None = None
) -> HeadView:
    """One head: the query/key plane (F03) and the weighted sum of the values (F20).

    `q` and `k` are `(n, d)`, `v` is `(n, d_v)`. `mask` is `"causal"` or an `(n, n)` boolean
    array, True where a query may see a key. Exact when d = 2; otherwise drawn on the two
    principal directions, labelled with the share of variance kept.
    """
    Q, K, V = as_array(q), as_array(k), as_array(v)
    n = Q.shape[0]
    if Q.ndim != 2 or K.shape != Q.shape or V.ndim != 2 or V.shape[0] != n:
        raise ValueError(
            f"q and k must be (n, d) alike and v (n, d_v): {Q.shape}, {K.shape}, {V.shape}"
        )
    raw = token_strings(tokens) or []
    if len(raw) != n:
        raise ValueError(f"{len(raw)} tokens for {n} queries")
    if isinstance(mask, str):
        if mask != "causal":
            raise ValueError(f"mask must be 'causal' or a boolean (n, n) array, not {mask!r}")
        allowed: np.ndarray | None = np.tril(np.ones((n, n), dtype=bool))
    else:
        allowed = None if mask is None else np.asarray(as_array(mask), dtype=bool)
    W = attention_weights(Q, K, allowed)
    (q2, k2), qk_kept = projection(Q, K)
    (v2,), v_kept = projection(V)
    return HeadView(
        kind="qk",
        **_labels(raw),
        title=title or "",
        weights=floats(W),
        mask="" if allowed is None else "".join("1" if a else "0" for a in allowed.ravel()),
        q2=q2.tolist(),
        k2=k2.tolist(),
        v2=v2.tolist(),
        d=Q.shape[1],
        dv=V.shape[1],
        qk_kept=qk_kept,
        v_kept=v_kept,
    )


def show_layer(
    model: Any,
    inputs: Any,
    tokens: Any = None,
    *,
    layer: int = 0,
    head: int = 0,
    batch: int = 0,
    heads: int | None = None,
    mask: Any = None,
    module: Any = None,
    title: str | None = None,
) -> HeadView:
    """`show` on one head of a real torch model: its q, k and v read by hooks while the model
    runs on `inputs` (token ids, a tokenizer's output given as `**inputs`, or a function that
    runs the model), so the query/key plane needs no hand-written glue.

    `layer` counts the model's attention modules in order (or pass the module itself as
    `module`); `heads` is needed only when the module does not say how many it has. `tokens`
    are strings or a tokenizer (the ids come from `inputs`). `mask` is as for `show`; by
    default "causal" when the module says it is (`is_causal`). q and k are as projected,
    before any rotary embedding.
    """
    from selfattn.notebook.capture import attention_layers, capture

    if module is None:
        layers = attention_layers(model)
        if not layers:
            raise ValueError("no attention module with q, k, v projections was found: pass module=")
        module = layers[layer]
    given: Any = inputs
    if hasattr(given, "keys"):  # a tokenizer's output, as model(**inputs) takes it
        run = lambda: model(**{str(key): given[key] for key in given.keys()})  # noqa: E731, SIM118
    elif callable(given) and not hasattr(given, "shape"):
        run = given
    else:
        run = lambda: model(given)  # noqa: E731
    q, k, v = (x[batch, head] for x in capture(module, run, heads))
    from selfattn.notebook.inputs import TOKENIZER

    given = inputs if any(hasattr(tokens, name) for name in TOKENIZER) else None
    raw = token_strings(tokens, given, batch)
    if mask is None:
        mask = "causal" if getattr(module, "is_causal", False) else None
    return show(
        q, k, v, tokens=raw or [str(i) for i in range(len(q))], mask=mask, title=title or ""
    )
