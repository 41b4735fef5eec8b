"""Layers and heads as the reader names them, one rule for every view: a number held, or one
counted from the end as Python counts (-1 the last), else one line naming what there is.

>>> picked(-1, [0, 1, 2], "layer")
2
"""

from __future__ import annotations

import numbers
import operator
from typing import Any


def among(values: list[int]) -> str:
    """Numbers as a range when they run on ("0..11"), else listed."""
    if values and values == list(range(values[0], values[-1] + 1)):
        return f"{values[0]}..{values[-1]}"
    return str(values)


def picked(value: Any, values: list[int], axis: str, holder: str = "the weights hold") -> int:
    """The one of `values` (layer numbers, or heads 0..h-1) that `value` names: itself, or
    from the end when negative, as `values[value]` reads it. A layer numbered 7 alone (a
    TransformerLens cache of one layer) is 7 or -1, never 0."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(
            f"{axis}={value!r}: {axis}s are whole numbers, -1 the last, as Python counts"
        )
    value = operator.index(value)
    n = len(values)
    if -n <= value < 0:
        return values[value]
    if value in values:
        return value
    raise ValueError(
        f"{axis}={value}: {holder} {axis}s {among(values)} (or -{n}..-1 from the last)"
    )
