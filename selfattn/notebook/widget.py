"""What every notebook view shares: the widget base (the bundle, the scoped styles, the row,
save_html), stepping through a stack of heads, and the inputs made ready for a view."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from selfattn.files import replace_file
from selfattn.notebook import assets, picture
from selfattn.notebook.data import looks_causal
from selfattn.notebook.indices import picked
from selfattn.notebook.inputs import Reading, named_layer, read_attention, token_strings
from selfattn.notebook.padding import unpadded
from selfattn.notebook.tokens import readable, visible

try:
    import anywidget
    import traitlets
except ImportError as error:  # pragma: no cover - the extra is missing
    raise ImportError(
        "selfattn.notebook needs the notebook extra: pip install 'selfattn[notebook]'"
    ) from error


class Widget(anywidget.AnyWidget):
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

    @traitlets.validate("title")
    def _clean_title(self, proposal: Any) -> str:
        """A title UTF-8 can write, with what would reverse it or draw a box shown as its
        escape, as labels are: here, so the live view and the saved page both show it."""
        return visible(str(proposal["value"]))

    @traitlets.validate("row")
    def _check_row(self, proposal: Any) -> int:
        """A query row of the map, -1 the last as Python counts; one outside is an error,
        never the nearest row picked silently."""
        value, n = int(proposal["value"]), len(self.tokens)
        if not n:  # tokens not set yet, as the widget is made
            return value
        if not -n <= value < n:
            raise traitlets.TraitError(f"row={value}: the map has query rows 0..{n - 1}")
        return value % n

    def _state(self) -> dict[str, Any]:
        names = [
            name
            for cls in type(self).__mro__
            if isinstance(cls, type) and issubclass(cls, Widget)
            for name in cls.class_own_traits(sync=True)
            if not name.startswith("_") and name != "css"
        ]
        return {name: getattr(self, name) for name in names}

    def __repr__(self) -> str:
        """What the view holds, in a line: the text a notebook shows where it cannot draw."""
        shape = getattr(self, "shape", None)
        held = f", shape {tuple(shape)}" if shape else ""
        title = f" {self.title!r}" if self.title else ""
        keys = getattr(self, "key_tokens", None) or self.tokens  # a rectangular map's keys
        n = picture.counted(len(self.tokens), len(keys))
        return f"<{type(self).__name__}{title}: {n}{held}>"

    def _still(self) -> str:
        """The view as a still picture (HTML), each view's own."""
        raise NotImplementedError

    def _ipython_display_(self) -> None:
        """The widget, then a still picture of it as an output of its own. A notebook
        reopened without the widget's state shows "Error displaying widget" in JupyterLab
        rather than any other part of the widget's output, so the picture stands apart:
        GitHub, nbviewer, an untrusted or stateless reopened notebook show it, and the live
        widget hides it (js/common.js hideStill). The widget's own text is left empty: an
        untrusted notebook shows it in place of the widget, and an object's repr there says
        nothing the still does not."""
        from IPython.display import display

        bundle = self._repr_mimebundle_()
        if bundle is not None:
            data, metadata = bundle
            display({**data, "text/plain": ""}, metadata=metadata, raw=True)
        display({"text/html": self._still(), "text/plain": repr(self)}, raw=True)

    def save_html(self, path: str | Path) -> Path:
        """Write the widget as one standalone HTML file: it opens offline, from file://,
        and asks no other origin for anything. Returns the path written."""
        return write(path, assets.page(self._state()))


def write(path: str | Path, text: str) -> Path:
    """The page, whole, at `path`: a failure leaves what was there before (files.py)."""
    return replace_file(path, text)


def keep(asked: Any, values: list[int], axis: str) -> list[int]:
    """The layers or heads save_html keeps: all of `values`, or the ones asked for, each
    read by `picked` (-1 the last), as every view reads layer= and head=."""
    if asked is None:
        return list(values)
    many = isinstance(asked, Iterable) and not isinstance(asked, str | bytes)
    listed: list[Any] = list(asked) if many else [asked]
    if not listed:
        raise ValueError(f"{axis}s to keep: none asked for ({asked!r}); leave it out for all")
    return sorted({picked(i, values, axis) for i in listed})


class Stepped(Widget):
    """A widget over a stack of heads, one (layer, head) on screen: stepping clamps to the
    stack and sends that head's slice (`_slice`, each subclass's own). Layers are numbered as
    the input numbers them (a TransformerLens cache of layer 7 alone is layer 7, not 0):
    `layer_ids` lists them, and `m.layer` is one of them; heads count from 0, as Python does."""

    layer = traitlets.Int(0).tag(sync=True)
    head = traitlets.Int(0).tag(sync=True)
    layer_ids = traitlets.List(traitlets.Int()).tag(sync=True)
    _ids: list[int] = [0]  # noqa: RUF012 - each instance sets its own before the traits
    _heads = 1

    @property
    def _layers(self) -> int:
        return len(self._ids)

    def _at(self, layer: int, head: int) -> int:
        """Where a (layer, head) sits in the flat stack of heads."""
        return self._ids.index(layer) * self._heads + head

    def _slice(self, layer: int, head: int) -> dict[str, Any]:
        raise NotImplementedError

    @traitlets.validate("layer")
    def _check_layer(self, proposal: Any) -> int:
        """One of the layers held (-1 the last), else an error naming them."""
        try:
            return picked(proposal["value"], self._ids, "layer")
        except ValueError as error:
            raise traitlets.TraitError(str(error)) from None

    def _where(self, layer: int | None, head: int | None) -> tuple[int, int]:
        """The head `layer=`, `head=` ask for (-1 the last, as Python counts), or one line
        naming what there is: never a neighbour picked silently."""
        layer = self.layer if layer is None else picked(layer, self._ids, "layer")
        head = self.head if head is None else picked(head, list(range(self._heads)), "head")
        return layer, head

    @traitlets.validate("head")
    def _check_head(self, proposal: Any) -> int:
        """One of the heads held (-1 the last), else an error naming them."""
        try:
            return picked(proposal["value"], list(range(self._heads)), "head")
        except ValueError as error:
            raise traitlets.TraitError(str(error)) from None

    @traitlets.observe("layer", "head")
    def _show_slice(self, _: Any) -> None:
        with self.hold_sync():
            for name, value in self._slice(self.layer, self.head).items():
                setattr(self, name, value)


def labels(raw: list[str]) -> dict[str, list[str]]:
    """The tokens as labels, and the raw tokens when any label differs from its token."""
    shown = readable(raw)
    return {"tokens": shown, "raw": raw if shown != raw else []}


def prepared(
    weights: Any,
    tokens: Any,
    ids: Any,
    batch: int | None,
    causal: bool | None,
    axes: str | None = None,
    key_tokens: Any = None,
    layer: int | None = None,
    picks: bool = False,
    attention_mask: Any = None,
) -> tuple[Reading, list[str], bool, list[str]]:
    """What a map is made of: the weights as read, the raw tokens of its queries, whether it
    is causal, and the raw tokens of its keys when they are not the queries' (a rectangular
    map: cross-attention, or one sentence of a pair attending to the other), else []. `layer`
    numbers one layer's heads; with `picks` (a view that opens on `layer`) it is left to pick
    one of the layers of weights that hold them. `attention_mask` leaves a padded batch's
    padding out (padding.py)."""
    reading = read_attention(weights, batch, axes)
    if not (picks and "l" in reading.axes):
        reading = named_layer(reading, layer)
    stack = reading.stack
    nq, nk = stack.shape[-2:]
    raw = token_strings(tokens, ids, batch) or [str(i) for i in range(nq)]
    if len(raw) != nq:
        raise ValueError(f"{len(raw)} tokens for a map of {nq} queries ({reading.said})")
    keys = _keys(key_tokens, batch, nq, nk, reading)
    reading, raw, keys = unpadded(reading, raw, keys, attention_mask, batch)
    stack = reading.stack
    nq, nk = stack.shape[-2:]
    if causal and nq != nk:
        raise ValueError(
            f"causal=True needs a square map; this one is {nq} queries × {nk} keys "
            "(cross-attention has no causal mask)"
        )
    if causal is None:
        causal = nq == nk and all(looks_causal(w) for w in stack.reshape(-1, nq, nk))
    return reading, raw, bool(causal), keys


def _keys(key_tokens: Any, batch: int | None, nq: int, nk: int, reading: Reading) -> list[str]:
    """A rectangular map's key labels: `key_tokens`, else the keys' numbers; [] when the
    keys are the queries (a square map with none given)."""
    keys = token_strings(key_tokens, None, batch) if key_tokens is not None else None
    if keys is None:
        return [str(j) for j in range(nk)] if nq != nk else []
    if len(keys) != nk:
        raise ValueError(f"{len(keys)} key_tokens for a map of {nk} keys ({reading.said})")
    return keys
