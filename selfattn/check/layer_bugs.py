"""Which known bug a layer's output matches: the reference, the bugs a layer can have (a mask, a
scale, heads split or joined wrong, q, k, v taken in another order), and what the report says."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from .findings import NONCAUSAL_BUGS, causal_bugs
from .frameworks import CallFailed
from .layer import MASK_FORMS, MHA_MASK, ORDERS, SIZES, CausalMask, Layer, Leak, future_leak
from .projections import Projections, Suspect, slipped_widths
from .reference import (
    CAUSAL,
    CORRECT,
    Variant,
    masked,
)
from .report import Report

Array = np.ndarray


def tails_of(proj: Projections) -> list[tuple[bool, bool]]:
    """What may follow the heads other than the map out (q_residual, out_residual): q added
    back, the map out as a feed-forward step, both (the Set Transformer's MAB)."""
    ways = [(True, False), (False, True), (True, True)]
    square = proj.out is not None and proj.out.w.shape[0] == proj.out.w.shape[1]
    return ways if square else ways[:1]


def judge(layer: Layer, rep: Report, causal: bool, leak: Leak | None, label: str) -> bool:
    """Compare with the reference; name the bug when it does not match; then, for a causal
    layer, whether the future reaches the past. Whether the layer was right throughout."""
    proj = layer.proj
    want = Suspect(CAUSAL if causal else CORRECT)
    check_name = f"matches float64 reference attention layer ({label})"
    results = [(x, layer(x)) for x in (layer.x(n, s) for n, s in layer.sizes)]
    sizes = ", ".join(f"n = {n}" for n, _ in layer.sizes)
    named = False  # a known bug, or an unexplained output, already reported
    right = all(agrees(layer, x[0], out[0], want) for x, out in results)
    if right:
        rep.check(check_name, "pass", f"x of shape (1, n, {proj.width}): {sizes}")
    else:
        # a leak says more than "wrong": it is reported below
        named = _name_the_bug(layer, rep, results, want, check_name, causal and bool(leak))
    if not causal:
        return right
    return _no_leak(layer, rep, leak, named) and right


def _name_the_bug(
    layer: Layer,
    rep: Report,
    results: list[tuple[Array, Array]],
    want: Suspect,
    check_name: str,
    leaks: bool,
) -> bool:
    """The known bug the outputs match, else wrong-output (unless `leaks`, said after);
    whether a finding was reported."""
    proj, s0, x0 = layer.proj, SIZES[0][1], results[0][0]  # SIZES[0]'s x, as reproduced
    causal = want.variant is CAUSAL
    hit = next(
        (
            v
            for v in candidates(causal, proj)
            if all(agrees(layer, x[0], out[0], v) for x, out in results)
        ),
        None,
    )
    if hit is not None and hit.id is not None:
        rep.check(check_name, "fail", f"matches the known bug: {hit.detail}")
        said = "" if hit.reshaped else f" ({hit.detail})"
        if proj.packed and "triangle" in hit.id:
            said += f"; {MHA_MASK}"
        rep.titled(hit.id, said, layer.text.expected(x0[0], s0, proj, want))
        return True
    rep.check(check_name, "fail", "differs from the reference; matches no known bug")
    if leaks:
        return False
    # no softmax ran: what it computes instead is not named, but said
    unseen = "; no softmax ran in its forward: not softmax attention" if proj.axis == "none" else ""
    rep.titled("wrong-output", unseen, layer.text.expected(x0[0], s0, proj, want))
    return True


def _no_leak(layer: Layer, rep: Report, leak: Leak | None, named: bool) -> bool:
    """Whether no output moves when only later x changes; a leak is reported unless a finding
    (`named`) already says what is wrong."""
    n0, s0 = SIZES[0]
    via = f" (`{layer.flag}=True`)" if layer.flag else ""
    leak_name = f"no future leak{via}: output i ignores x after i"
    if leak is None:
        rep.check(leak_name, "pass", f"x of shape (1, {n0}, {layer.proj.width}), every i")
        return True
    row, after = leak
    detail = f"output {row} moves when only x after position {after} changes"
    rep.check(leak_name, "fail", detail)
    if not named:
        rep.titled("causal-leak", f": {detail}", layer.text.leak(n0, s0, after))
    return False


def read_wiring(layer: Layer, want: Suspect, x: Array, out: Array) -> Projections:
    """How the layer's weights are wired: how it reads a fused map's columns, whether it
    applies the norm it holds to x, and whether it adds x to its output.

    A reading other than the plain one is taken only when it makes the output right: a buggy
    layer is nearer to some rewiring by chance, and would be explained away. When none is
    right, only the norm and the residual are decided, by which reference the output is
    nearer: adding x or normalising after it moves the output far more than a bug does.
    """
    # an output never below 0 and at 0 in a quarter of its entries or more has been through
    # a ReLU: read from the output itself, before any bug is looked for
    proj = replace(layer.proj, relu=bool(out.min() >= 0 and (out == 0).mean() >= 0.25))
    norms = (proj.norm, None) if proj.norm is not None else (None,)
    wires = [
        (norm, res, after)
        for norm in norms
        for res, after in ((False, False), (True, False), (True, norm is not None))
    ]
    ways = [
        replace(w, norm=norm, residual=res, post_norm=after)
        for w in _readings(proj)
        for norm, res, after in wires
    ]
    # the Set Transformer's tail (Q + A V, then O + ReLU(out(O))) only after the usual ones:
    # most layers are right at the first reading, and this keeps them as fast
    tails = [replace(w, q_residual=q, out_residual=o) for w in ways for q, o in tails_of(proj)]
    right = next((w for w in [*ways, *tails] if agrees(layer, x, out, want, w)), None)
    if right is not None:
        return right
    plain = [replace(proj, norm=n, residual=r, post_norm=a) for n, r, a in wires]
    plain += [replace(w, q_residual=q, out_residual=o) for w in plain for q, o in tails_of(proj)]
    return min(plain, key=lambda w: _error(w, want, x, out))


def _readings(proj: Projections) -> list[Projections]:
    """Every way to read a fused map's columns (the parts in any order, per head or side by
    side), and, with grouped-query heads, which q heads share a k, v head."""
    ways = ((False, False), (True, False), (False, True))  # side by side, per head, innermost
    reads = [(o, *w) for w in ways for o in ORDERS] if proj.fused is not None else []
    wired = [proj.rewired(*read) for read in reads] or [proj]
    if 0 < proj.kv_heads < proj.heads:
        wired += [replace(w, tiled=True) for w in wired]
    return wired


def _error(proj: Projections, want: Suspect, x: Array, out: Array) -> float:
    """How far `out` is from `proj` computed as `want`, over the rows the reference defines;
    inf when it cannot be compared or is not finite there."""
    ref = want.run(proj, x)
    if ref is None or ref.shape != out.shape:
        return np.inf
    rows = np.isfinite(ref).all(axis=-1)
    if not rows.any() or not np.isfinite(out[rows]).all():
        return np.inf
    return float(np.max(np.abs(out[rows] - ref[rows])))


def agrees(
    layer: Layer, x: Array, out: Array, suspect: Suspect, proj: Projections | None = None
) -> bool:
    """Whether `out` is the layer's output (`proj`, by default as read) computed as
    `suspect`, within the layer's precision."""
    proj = proj or layer.proj
    return _error(proj, suspect, x, out) <= layer.tolerance(x, suspect, proj)


def candidates(causal: bool, proj: Projections) -> list[Suspect]:
    """The known bugs, under the mask the layer is meant to have; and two that only a layer
    can have: scaled by another of its widths than the head size (slipped_widths: nanoGPT's
    lecture Head's `C**-0.5`), and heads split across positions."""
    wrong = _wrong_scales(proj)
    # C's first: where C is the square of the head size, C**-0.5 is also 1 / d, and the width
    # is the likelier reading in a layer; the other widths after the known bugs
    by_width = [v for v in wrong if v.p == proj.width**-0.5]
    plain = [*by_width, *NONCAUSAL_BUGS, *(v for v in wrong if v not in by_width)]
    base = CAUSAL if causal else CORRECT
    # split across positions, joined across them, or both (FuxiCTR's view(B * heads, -1, d))
    ways = ((True, False), (False, True), (True, True))
    cut = [Suspect(base, c, m) for c, m in ways] if proj.heads > 1 else []
    if not causal:  # a mask of its own after the softmax still lets the future in: no
        # causal run shows, but the output is the past's share of each row
        after = [v for v in causal_bugs(CORRECT) if v.id == "causal-mask-after-softmax"]
        return [*(Suspect(v) for v in [*plain, *after]), *cut]
    return [*(Suspect(masked(v)) for v in plain), *(Suspect(v) for v in causal_bugs(CORRECT)), *cut]


def _wrong_scales(proj: Projections) -> list[Variant]:
    """The wrong scales a layer may have: another of its widths', the one its constructor's
    defaults set, 1/sqrt(head size) where the caller passed another."""
    wrong = [
        Variant("scale-wrong", f"scores scaled by {said}, not the head size", "alpha", p=w**-0.5)
        for w, said in slipped_widths(proj)
    ]
    if proj.set_scale:
        said = f"{proj.set_scale:.4g} (`{proj.scaled_by}`), as the constructor's defaults set it"
        wrong.append(
            Variant(
                "scale-wrong",
                f"scores scaled by {said}, not the head size",
                "alpha",
                p=proj.set_scale,
            )
        )
    if proj.scale_passed:  # the caller's scale ignored, the usual one used instead
        said = f"1/sqrt({proj.head_size}), not the {proj.scale:.4g} passed as `{proj.scaled_by}`"
        wrong.append(
            Variant("scale-wrong", f"scores scaled by {said}", "alpha", p=proj.head_size**-0.5)
        )
    return wrong


def mask_that_hides_the_future(
    layer: Layer, masks: list[str], x: Array, tol: float
) -> CausalMask | None:
    """The first mask argument and form under which the layer no longer sees the future."""
    return mask_that(layer, masks, x, lambda out: future_leak(layer, x, out, tol) is None)


def mask_that(
    layer: Layer, masks: list[str], x: Array, fits: Callable[[Array], bool]
) -> CausalMask | None:
    """The first mask argument and form under which the layer's output on x `fits`."""
    for param in masks:
        for form, square in itertools.product(MASK_FORMS, (False, True)):
            layer.mask = CausalMask(param, form, square)
            try:
                if fits(layer(x)):
                    return layer.mask
            except CallFailed:
                continue
    layer.mask = None
    return None
