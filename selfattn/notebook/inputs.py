"""What models return, as the widgets take it: attention as one `(layers, heads, n, n)` stack,
tokens as strings.

Hugging Face returns `outputs.attentions`, a tuple with one `(batch, heads, n, n)` tensor per
layer; TransformerLens keeps each layer's pattern in its cache under
`blocks.{layer}.attn.hook_pattern`. Both are read as they come, and `batch` picks one sequence
of a batch. Nothing here imports torch or transformers: tensors are read by `__array__`.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, cast

import numpy as np

from selfattn.notebook.data import as_array, dtype_name
from selfattn.notebook.layered import Layered
from selfattn.notebook.tokens import from_tokenizer

TOKENIZER = ("convert_ids_to_tokens", "to_str_tokens", "decode")  # what from_tokenizer uses
PATTERN = re.compile(r"blocks\.(\d+)\.attn\.hook_pattern")


def _is_tensor(x: Any) -> bool:
    return hasattr(x, "shape") and hasattr(x, "__array__")


def _layers(weights: Any) -> tuple[list[Any], list[int] | None] | None:
    """The layers of a model's output, in order, and the layer numbers a cache names them by
    (None for a sequence); None when `weights` is one array."""
    if hasattr(weights, "attentions") and not _is_tensor(weights):
        weights = weights.attentions  # a Hugging Face ModelOutput itself
    if hasattr(weights, "keys") and not _is_tensor(weights):  # a dict or an ActivationCache
        names = list(weights.keys())
        found = {int(m[1]): k for k in names if (m := PATTERN.fullmatch(str(k)))}
        if not found:
            raise ValueError("no blocks.{layer}.attn.hook_pattern in the cache: run with it kept")
        return [weights[found[layer]] for layer in sorted(found)], sorted(found)
    if isinstance(weights, (tuple, list)) and weights and _is_tensor(weights[0]):
        return list(weights), None
    return None


def one_sequence(x: np.ndarray, batch: int | None, axis: int) -> np.ndarray:
    """One sequence of a batch along `axis`: `batch`, or the only one there is."""
    size = x.shape[axis]
    if batch is None:
        if size != 1:
            raise ValueError(f"a batch of {size} sequences: say which one with batch=0..{size - 1}")
        batch = 0
    if not -size <= batch < size:
        raise ValueError(f"batch={batch} is outside a batch of {size}")
    return x[(slice(None),) * axis + (batch,)]  # a view: np.take copied every layer once more


AXES = {"l": "layers", "b": "batch", "h": "heads", "q": "queries", "k": "keys"}


@dataclass
class Reading:
    """Attention as the widgets draw it, `(layers, heads, queries, keys)` at most, and how it
    was read: `axes` names each axis of what was passed ("bhqk"), `layers` the layer numbers
    (a cache's own, else 0, 1, ...), `guessed` whether the reading is one of two a shape allows."""

    stack: np.ndarray
    dtype: str
    axes: str
    layers: list[int] = field(default_factory=list)
    guessed: bool = False
    batch: int | None = None
    from_layers: bool = False  # a sequence of layers or a cache, not one array
    shape: tuple[int, ...] = ()  # what was passed, as passed: (layers, batch, ...) for a tuple
    named: bool = False  # one layer's heads numbered by layer=, their "l" axis added here
    padding: int = 0  # tokens attention_mask marked as padding, left out (padding.py)

    @property
    def said(self) -> str:
        """The reading in words: "(batch, heads, queries, keys), sequence 0"."""
        given = self.axes[1:] if self.named else self.axes
        names = ", ".join(AXES[a] for a in given)
        picked = f", sequence {self.batch}" if "b" in self.axes else ""
        guess = "; pass axes= if that is wrong" if self.guessed else ""
        # one layer's heads (TransformerLens's cache["pattern", 7]) carry no layer number
        alone = "h" in self.axes and "l" not in self.axes
        unnamed = "; one layer, its number unknown: pass layer=" if alone else ""
        layer = f", layer {self.layers[0]} as layer= names it" if self.named else ""
        pads = self.padding
        left = f", {pads} padding token{'s' * (pads != 1)} left out (attention_mask)" * bool(pads)
        return f"read as ({names}){picked}{guess}{unnamed}{layer}{left}"


def _default_axes(shape: tuple[int, ...], batch: int | None) -> tuple[str, bool]:
    """The axes a shape is read by when none are named, and whether that is a guess: a 4-D
    array is (batch, heads, n, n) as a Hugging Face layer gives it when a batch is asked for or
    its first axis is 1, else (layers, heads, n, n), said so."""
    if len(shape) == 4:
        if batch is not None or shape[0] == 1:
            return "bhqk", False
        return "lhqk", True
    fixed = {2: "qk", 3: "hqk", 5: "lbhqk"}
    if len(shape) not in fixed:
        raise ValueError(
            f"weights must be (n, n), (heads, n, n) or (layers, heads, n, n), not {shape}"
        )
    return fixed[len(shape)], False


def _by_axes(array: np.ndarray, axes: str, batch: int | None) -> np.ndarray:
    """`array` whose axes are named by `axes` as (layers, heads, queries, keys), or as few
    of them as it has; the batch axis, when named, gives up one sequence."""
    letters = set(axes)
    if len(letters) != len(axes) or not letters <= set(AXES) or not {"q", "k"} <= letters:
        raise ValueError(
            f"axes names each axis once by l (layer), b (batch), h (head), q (query), k (key), "
            f"with q and k, as 'bhqk': not {axes!r}"
        )
    if len(axes) != array.ndim:
        raise ValueError(f"axes={axes!r} names {len(axes)} axes; the weights have {array.shape}")
    order = [a for a in "lbhqk" if a in axes]
    array = np.transpose(array, [axes.index(a) for a in order])
    if "b" in order:
        array = one_sequence(array, batch, axis=order.index("b"))
    elif batch is not None:
        raise ValueError(f"batch= needs a batch axis; weights are {array.shape}, axes {axes!r}")
    return array


def read_attention(weights: Any, batch: int | None = None, axes: str | None = None) -> Reading:
    """Attention in any of the shapes models give it, as the widgets draw it, the dtype it
    came in (for the row-sum tolerance) and how it was read.

    One array: `(n, n)`, `(heads, n, n)`, `(layers, heads, n, n)` or a Hugging Face layer's
    `(batch, heads, n, n)` (see `_default_axes`), `(layers, batch, heads, n, n)` as
    `torch.stack(outputs.attentions)` makes it, or any order named by `axes` ("bhqk"). A
    sequence of layers (Hugging Face's `outputs.attentions`, or the output itself), or a mapping
    of `blocks.{layer}.attn.hook_pattern` (a TransformerLens cache, whose layer numbers are
    kept): each layer `(batch, heads, n, n)` or `(heads, n, n)`.
    """
    found = _layers(weights)
    if found is None:
        return _from_array(weights, batch, axes)
    return _from_layers(*found, batch, axes)


def _from_array(weights: Any, batch: int | None, axes: str | None) -> Reading:
    """One array, read by `axes` or by its shape."""
    array = as_array(weights)
    named, guessed = (axes, False) if axes else _default_axes(array.shape, batch)
    stack = _by_axes(array, named, batch)
    count = stack.shape[0] if "l" in named else 0
    picked = None if "b" not in named else (batch or 0)
    return Reading(
        stack, dtype_name(weights), named, list(range(count)), guessed, picked, shape=array.shape
    )


def _from_layers(
    layers: list[Any], numbers: list[int] | None, batch: int | None, axes: str | None
) -> Reading:
    """One array per layer, each read by `axes` or as a Hugging Face layer is."""
    arrays = [as_array(layer) for layer in layers]
    shapes = {a.shape for a in arrays}
    if len(shapes) != 1:
        raise ValueError(f"layers differ in shape: {sorted(shapes)}")
    if arrays[0].ndim not in (3, 4):
        raise ValueError(f"each layer must be (batch, heads, n, n) or (heads, n, n), not {shapes}")
    per_layer = axes or ("bhqk" if arrays[0].ndim == 4 else "hqk")
    first = _by_axes(arrays[0], per_layer, batch)
    if first.ndim != 3:
        raise ValueError(f"each layer must hold heads of (n, n) maps; axes={per_layer!r}")
    # no copy: each layer stays a view of the tensor it came in (layered.py); stacking them
    # copied 600 MB at 144 heads of 1,024 tokens before anything was drawn
    views = [first, *(_by_axes(array, per_layer, batch) for array in arrays[1:])]
    stack = cast(np.ndarray, Layered(views))  # indexed a head at a time, as an array is
    picked = None if "b" not in per_layer else (batch or 0)
    ids = numbers or list(range(len(arrays)))
    shape = (len(arrays), *arrays[0].shape)
    return Reading(stack, dtype_name(layers[0]), "l" + per_layer, ids, False, picked, True, shape)


def named_layer(reading: Reading, layer: int | None) -> Reading:
    """One layer's weights named by the layer the reader says they are (`layer=7` for
    TransformerLens's `cache["pattern", 7]`, a tensor that carries no layer number): drawn
    as "layer 7, head 2". Weights that hold their layers are not renamed."""
    if layer is None:
        return reading
    if "l" in reading.axes:
        raise ValueError(
            f"layer={layer} names one layer's weights; these hold layers {reading.layers} "
            f"({reading.said})"
        )
    stack, axes = reading.stack[None], "l" + reading.axes
    return replace(reading, stack=stack, axes=axes, layers=[layer], from_layers=True, named=True)


def attention_stack(weights: Any, batch: int | None = None) -> tuple[np.ndarray, str]:
    """`read_attention`'s stack and dtype alone."""
    found = read_attention(weights, batch)
    return np.asarray(found.stack), found.dtype


def token_strings(tokens: Any, ids: Any = None, batch: int | None = None) -> list[str] | None:
    """Raw tokens from strings, or from a tokenizer and ids (`tokens=tokenizer, ids=...`, or
    `tokens=(tokenizer, ids)`); ids may be a batch (`batch` picks one) or a tokenizer's
    output with `input_ids`. None when no tokens were given."""
    if isinstance(tokens, tuple) and len(tokens) == 2 and not isinstance(tokens[0], str):
        tokens, ids = tokens
    if tokens is None:
        return None
    if isinstance(tokens, str):
        words = tokens.split()
        warnings.warn(
            f"tokens is one string: split by whitespace into {len(words)} tokens; pass a list "
            "(tokens=text.split()) or a tokenizer with its ids (tokens=tokenizer, ids=input_ids)",
            stacklevel=3,
        )
        return words
    if not any(hasattr(tokens, name) for name in TOKENIZER):
        if ids is not None:
            raise ValueError("ids= goes with a tokenizer, not with a list of tokens")
        return [str(t) for t in tokens]
    if ids is None:
        raise ValueError("a tokenizer needs the ids it made: tokens=tokenizer, ids=input_ids")
    if isinstance(ids, Mapping) or hasattr(ids, "keys"):  # a tokenizer's whole output
        ids = ids["input_ids"]
    array = np.asarray(ids.detach().cpu() if hasattr(ids, "detach") else ids)
    if array.ndim == 2:
        array = one_sequence(array, batch, axis=0)
    return from_tokenizer(tokens, array)
