"""A padded batch's padding left out of a map: Hugging Face's `attention_mask`, 1 for a token
and 0 for padding, `(n,)` or `(batch, n)` as the tokenizer returns it.

Padding keys get no weight and padding queries' rows say nothing (a left-padded Llama's are
uniform or NaN), so they are not drawn as tokens: their rows and columns are dropped before
anything is checked, summarised or drawn, and the reading says how many were.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, cast

import numpy as np

from selfattn.notebook.inputs import Reading, one_sequence
from selfattn.notebook.layered import Layered


def mask_row(mask: Any, batch: int | None, n: int, reading: Reading) -> np.ndarray:
    """The mask of the sequence drawn, as booleans, or one line saying what is wrong with it."""
    if isinstance(mask, Mapping) or hasattr(mask, "keys"):  # a tokenizer's whole output
        mask = mask["attention_mask"]
    array = np.asarray(mask.detach().cpu() if hasattr(mask, "detach") else mask)
    expected = (
        f"attention_mask must be (n,) or (batch, n) of 0 and 1 as the tokenizer returns it, "
        f"n = {n} tokens ({reading.said})"
    )
    if array.ndim not in (1, 2) or array.shape[-1] != n:
        raise ValueError(f"{expected}: not {array.shape}")
    if array.ndim == 2:
        array = one_sequence(array, batch if batch is not None else reading.batch, axis=0)
    if array.dtype != bool and not np.isin(array, (0, 1)).all():
        raise ValueError(f"{expected}: it holds {sorted(set(np.unique(array).tolist()))[:5]}")
    kept = array.astype(bool)
    if not kept.any():
        raise ValueError(f"{expected}: every token of this sequence is padding")
    return kept


def unpadded(
    reading: Reading, raw: list[str], keys: list[str], mask: Any, batch: int | None
) -> tuple[Reading, list[str], list[str]]:
    """The map, its query tokens and its key tokens without the padding `mask` marks: on a
    square map its queries and keys, on a rectangular one (cross-attention) its keys, the
    encoder's tokens the mask is of."""
    if mask is None:
        return reading, raw, keys
    nq, nk = reading.stack.shape[-2:]
    kept = mask_row(mask, batch, nk, reading)
    if kept.all():
        return reading, raw, keys
    square = nq == nk

    def cut(w: np.ndarray) -> np.ndarray:  # keys, and queries on a square map
        return w[..., kept][..., kept, :] if square else w[..., kept]

    given = reading.stack
    # a model's layers as they came (layered.py) are cut a layer at a time: never whole
    if isinstance(given, Layered):
        stack = cast(np.ndarray, Layered([cut(layer) for layer in given]))
    else:
        stack = cut(given)
    if square:
        raw = [t for t, k in zip(raw, kept, strict=True) if k]
    keys = [t for t, k in zip(keys, kept, strict=True) if k] if keys else keys
    return replace(reading, stack=stack, padding=int((~kept).sum())), raw, keys
