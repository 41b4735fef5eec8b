"""Mask conventions: the mask array for each convention, and probing a mask parameter's
shape and convention."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from .frameworks import (
    CallFailed,
)
from .reference import tolerance
from .signature import MaskParam

if TYPE_CHECKING:
    from .kernel import Kernel


MASK_KINDS = {
    "keep": "boolean keep (True = may attend)",
    "block": "boolean block (True = masked out)",
    "additive": "additive float (0 = keep, -inf = block)",
    "ignored": "none: the mask argument has no effect",
}


def make_mask(kind: str, keep: np.ndarray) -> tuple[np.ndarray, str]:
    """The mask array for `keep` (True = may attend) under convention `kind`."""
    if kind == "block":
        return ~keep, "bool"
    if kind == "additive":
        return np.where(keep, 0.0, -np.inf), "float"
    return keep.copy(), "bool"


def looks_empty(out: np.ndarray | None) -> bool:
    """An output with nothing attended: NaN, zeros, or every row the same average."""
    if out is None or not np.isfinite(out).all():
        return True
    return bool(np.allclose(out, out[:1], rtol=1e-6, atol=1e-9))


FORMS = ("square", "batched", "padding")


def probe_mask(kern: Kernel, param: MaskParam, layouts: tuple[str, ...] = ()) -> None:
    """Find the shape and the convention of mask parameter `param`, by probing.

    Shape: an (n, n) mask first, then (1, 1, n, n) (or (1, n, n)), then a (1, n) key-padding
    mask. Convention: an all-True boolean mask changes nothing for a keep mask and empties
    every row for a block mask; all-False does the opposite. When both change nothing, an
    additive float mask with -inf on some keys tells an additive mask from an ignored one.
    Outputs are compared within the kernel's own precision: torch adds a boolean mask as +1 on
    every score, invisible in float32 but not in float16.

    When no mask shape works in the kernel's layout, `layouts` are tried next: a key-padding
    mask indexed [:, None, None, :] needs 4-D scores even if the rest runs on (n, d).
    """
    saved = kern.flag, kern.mask, kern.layout
    kern.drive(param.name)
    try:
        for layout in (kern.layout, *(x for x in layouts if x != kern.layout)):
            kern.layout = layout
            param.kind = _probe(kern, param)
            if param.kind != "unusable":
                saved = (*saved[:2], layout)
                param.switch = _switched_on_by(kern, param) if param.kind == "ignored" else None
                return
    finally:
        kern.flag, kern.mask, kern.layout = saved


def _switched_on_by(kern: Kernel, param: MaskParam) -> str | None:
    """The option (a parameter defaulting to False) under which a mask argument that changes
    nothing by itself takes effect: with it True, an all-False mask of the form that was
    accepted changes the output or makes the call fail, where no mask does neither."""
    rng = np.random.default_rng(7)
    q, k, v = rng.standard_normal((3, 7, 5))
    empty = (np.zeros(7 if param.form == "padding" else (7, 7), dtype=bool), "bool")
    for switch in kern.sig.switches:
        if switch in kern.args or switch == kern.sig.flag:
            continue
        try:
            with kern.passing(**{switch: True}):
                plain = kern.call(q, k, v, mask="none")
                try:
                    masked = kern.call(q, k, v, mask=empty)
                except CallFailed:
                    return switch
        except CallFailed:
            continue
        if not np.allclose(plain, masked, equal_nan=True):
            return switch
    return None


def _probe(kern: Kernel, param: MaskParam) -> str:
    rng = np.random.default_rng(7)
    n = 7
    q, k, v = rng.standard_normal((3, n, 5))

    def attempt(mask: tuple[np.ndarray, str] | str) -> np.ndarray | None:
        return kern.answer(q, k, v, mask=mask)

    out_t = _form(param, n, attempt)
    if out_t is None:
        return "unusable"
    size = n if param.form == "padding" else (n, n)
    # the last two keys blocked for every query: seen also by a kernel that is causal anyway
    pattern = np.broadcast_to(np.arange(n) < n - 2, size)
    tol = tolerance(q, k, v, kern.lp)
    outs = {
        "all": out_t,
        "none": attempt((np.zeros(size, dtype=bool), "bool")),
        "plain": attempt("none"),
    }
    return _convention(outs, lambda: attempt((np.where(pattern, 0.0, -np.inf), "float")), tol)


def _form(param: MaskParam, n: int, attempt: Callable[[Any], Any]) -> Any:
    """The output with an all-True mask in the first form the kernel takes (`param.form`),
    or None when it takes none."""
    for form in FORMS:
        param.form = form
        out = attempt((np.ones(n if form == "padding" else (n, n), dtype=bool), "bool"))
        if out is not None and (form == "padding" or _rows_read(n, attempt, out)):
            return out
    param.form = "square"
    return None


def _rows_read(n: int, attempt: Callable[[Any], Any], out_t: np.ndarray) -> bool:
    """Whether an (n, n) mask the kernel takes is read a row per query: one key changed in the
    last row alone moves the output when changing every entry does. A (batch, n) key mask
    handed (n, n) reads row 0 as batch 0's and ignores the rest (lucidrains'
    flash-attention-jax `key_mask`), so a causal mask there is wrongly read."""
    one = np.ones((n, n), dtype=bool)
    one[-1, 0] = False
    outs = [attempt((m, "bool")) for m in (one, np.zeros((n, n), dtype=bool))]
    if any(o is None for o in outs):
        return True
    moved = [not np.allclose(o, out_t, equal_nan=True) for o in outs]
    return moved[0] or not moved[1]


def _convention(outs: dict[str, Any], additive: Callable[[], Any], tol: float) -> str:
    """keep, block, additive or ignored, from the outputs with every key kept (`all`), none
    (`none`), no mask (`plain`), and a float mask hiding two keys (`additive()`)."""
    out_t, out_f, plain = outs["all"], outs["none"], outs["plain"]

    def same(a: np.ndarray | None, b: np.ndarray | None) -> bool:
        return a is not None and b is not None and float(np.max(np.abs(a - b))) <= tol

    # the one that moved must have emptied the rows: a mask added as a bias (True = +1 on every
    # score) moves them too when the softmax is not shift-invariant (an extra zero logit)
    kept = same(out_t, plain)
    if plain is not None and kept != same(out_f, plain) and looks_empty(out_f if kept else out_t):
        return "keep" if kept else "block"
    if plain is None and looks_empty(out_t) != looks_empty(out_f):
        return "block" if looks_empty(out_t) else "keep"
    added = additive()
    reference = plain if plain is not None else (out_f if out_f is not None else out_t)
    if added is None:
        return "keep"
    if reference is None or not same(added, reference):
        return "additive"
    return "ignored"
