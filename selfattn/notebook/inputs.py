"""What models return, as the widgets take it: attention as one `(layers, heads, n, n)` stack,
tokens as strings.

Hugging Face returns `outputs.attentions`, a tuple with one `(batch, heads, n, n)` tensor per
layer; TransformerLens keeps each layer's pattern in its cache under
`blocks.{layer}.attn.hook_pattern`. Both are read as they come, and `batch` picks one sequence
of a batch. Nothing here imports torch or transformers: tensors are read by `__array__`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import numpy as np

from selfattn.notebook.data import as_array, dtype_name
from selfattn.notebook.tokens import from_tokenizer

TOKENIZER = ("convert_ids_to_tokens", "to_str_tokens", "decode")  # what from_tokenizer uses
PATTERN = re.compile(r"blocks\.(\d+)\.attn\.hook_pattern")


def _is_tensor(x: Any) -> bool:
    return hasattr(x, "shape") and hasattr(x, "__array__")


def _layers(weights: Any) -> list[Any] | None:
    """The layers of a model's output, in order, or None when `weights` is one array."""
    if hasattr(weights, "attentions") and not _is_tensor(weights):
        weights = weights.attentions  # a Hugging Face ModelOutput itself
    if hasattr(weights, "keys") and not _is_tensor(weights):  # a dict or an ActivationCache
        names = list(weights.keys())
        found = {int(m[1]): k for k in names if (m := PATTERN.fullmatch(str(k)))}
        if not found:
            raise ValueError("no blocks.{layer}.attn.hook_pattern in the cache: run with it kept")
        return [weights[found[layer]] for layer in sorted(found)]
    if isinstance(weights, (tuple, list)) and weights and _is_tensor(weights[0]):
        return list(weights)
    return None


def _one(x: np.ndarray, batch: int | None, axis: int) -> np.ndarray:
    """One sequence of a batch along `axis`: `batch`, or the only one there is."""
    size = x.shape[axis]
    if batch is None:
        if size != 1:
            raise ValueError(f"a batch of {size} sequences: say which one with batch=0..{size - 1}")
        batch = 0
    if not -size <= batch < size:
        raise ValueError(f"batch={batch} is outside a batch of {size}")
    return np.take(x, batch, axis=axis)


def attention_stack(weights: Any, batch: int | None = None) -> tuple[np.ndarray, str]:
    """Attention in any of the shapes models give it, as the widgets draw it, and the dtype
    it came in (for the row-sum tolerance).

    One array: `(n, n)`, `(heads, n, n)`, `(layers, heads, n, n)`, or `(layers, batch, heads,
    n, n)` as `torch.stack(outputs.attentions)` makes it. A sequence of layers (Hugging Face's
    `outputs.attentions`, or the output itself), or a mapping of
    `blocks.{layer}.attn.hook_pattern` (a TransformerLens cache): each layer `(batch, heads,
    n, n)` or `(heads, n, n)`.
    """
    layers = _layers(weights)
    if layers is None:
        stack = as_array(weights)
        if stack.ndim == 5:
            stack = _one(stack, batch, axis=1)
        elif batch is not None:
            raise ValueError(f"batch= needs a batch axis; weights are {stack.shape}")
        return stack, dtype_name(weights)
    arrays = [as_array(layer) for layer in layers]
    shapes = {a.shape for a in arrays}
    if len(shapes) != 1:
        raise ValueError(f"layers differ in shape: {sorted(shapes)}")
    if arrays[0].ndim == 4:
        arrays = [_one(a, batch, axis=0) for a in arrays]
    elif arrays[0].ndim != 3 or batch is not None:
        raise ValueError(f"each layer must be (batch, heads, n, n) or (heads, n, n), not {shapes}")
    return np.stack(arrays), dtype_name(layers[0])


def token_strings(tokens: Any, ids: Any = None, batch: int | None = None) -> list[str] | None:
    """Raw tokens from strings, or from a tokenizer and ids (`tokens=tokenizer, ids=...`, or
    `tokens=(tokenizer, ids)`); ids may be a batch (`batch` picks one) or a tokenizer's
    output with `input_ids`. None when no tokens were given."""
    if isinstance(tokens, tuple) and len(tokens) == 2 and not isinstance(tokens[0], str):
        tokens, ids = tokens
    if tokens is None:
        return None
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
        array = _one(array, batch, axis=0)
    return from_tokenizer(tokens, array)
