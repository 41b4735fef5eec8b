"""The questions kernels and layers both ask of their target, one implementation each: does it
give the same output on every call (as many calls for both), which switch asks for the causal
mask by its effect, and did an output move when only later positions changed. Each subject
adapts its call to them (a kernel changes keys and values, a layer its x).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

import numpy as np

from .reference import hides_the_future

Array = np.ndarray


# How many calls on the same inputs the determinism question makes, for a kernel and a layer
# alike. Three, not two: a kernel's first probe (6 x 6) has 36 weights, and so has one head of
# a causal layer's first x (8 positions); dropout at 0.1 keeps the very same 36 in two calls
# about once in 1,300 checks (0.82^36), in three about once in 80,000 (0.73^36).
CALLS = 3


def same_output(call: Callable[[], Array], first: Array | None = None) -> float:
    """The largest change between CALLS outputs of `call` on the same inputs; `first`, an
    output already had, counts as the first call."""
    first = call() if first is None else first
    return repeat_moved(first, [call() for _ in range(CALLS - 1)])


def repeat_moved(first: Array, again: Iterable[Array]) -> float:
    """The largest change between the first output and later ones on the same inputs; an
    entry NaN in either is no change (a NaN output is said by the checks for it)."""
    return max((float(np.nanmax(np.abs(a - first), initial=0.0)) for a in again), default=0.0)


def rows_moved(a: Array, b: Array) -> Array:
    """How far each row (the last axis reduced) moved from a to b: NaN in both places is no
    change, NaN in one is an infinite one."""
    both = np.isnan(a) & np.isnan(b)
    diff = np.where(both, 0.0, np.abs(a - b))
    return np.max(np.where(np.isnan(diff), np.inf, diff), axis=-1)


def moved(a: Array, b: Array) -> float:
    """The largest change between two outputs, as rows_moved counts it."""
    return float(np.max(rows_moved(a, b)))


def future_moved(out: Array, got: Array, i: int) -> Array:
    """How far each output at or before position i (positions on the last axis but one) moved
    from `out` to `got`, the output when only positions after i changed; flat."""
    return rows_moved(out[..., : i + 1, :], got[..., : i + 1, :]).reshape(-1)


def future_leaks(
    out: Array, positions: Iterable[int], changed: Callable[[int], Array | None]
) -> Iterator[tuple[int, Array, Array]]:
    """The leak test, for a kernel and a layer alike: for each position i, the output when only
    the positions after i changed (`changed(i)`; None when that call failed, and i is skipped)
    and how far each output at or before i moved from `out` (future_moved). The subject says
    how it changes the future and which i it asks about, and judges the movements."""
    for i in positions:
        got = changed(i)
        if got is not None:
            yield i, future_moved(out, got, i), got


def switch_by_effect(
    switches: Iterable[str], answer_with: Callable[[str], Array | None], plain: Array, tol: float
) -> str | None:
    """The first switch (a parameter defaulting to False) that, set True, acts as the causal
    mask (hides_the_future); `answer_with(name)`: the output with it set, None if that failed."""
    for name in switches:
        out = answer_with(name)
        if out is not None and hides_the_future(out, plain, tol):
            return name
    return None
