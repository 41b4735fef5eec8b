"""Diagnosing a kernel without a mask: the reference or a known bug its outputs match, a local
window, and for outputs that match none, what they fit (a scale, a power law of d)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from . import repro, tiles
from .context import Ctx, Outs, Probe, matches, shapes, weights
from .findings import NONCAUSAL_BUGS, causal_bugs
from .kernel import Kernel
from .reference import (
    CAUSAL,
    CORRECT,
    SCORES,
    Variant,
    Window,
    local_window,
    one_more,
    tolerance,
)

Array = np.ndarray


def diagnose_plain(ctx: Ctx, plain: Outs) -> Variant | None:
    """Compare the unmasked output with the reference and name the bug.

    Returns what the kernel does without a mask (the reference, a known bug, or None when
    unknown), for the causal checks to build on.
    """
    kern, rep, probes = ctx.kern, ctx.rep, ctx.probes
    name = "matches float64 reference attention (no mask)"
    hit = _plain_hit(ctx, plain)
    if hit is None and (window := window_seen(ctx)) is not None:
        # no variant over the whole sequence: each over the local windows the kernel keeps to
        kern.reference = replace(kern.reference, window=window)
        rep.notes.append(f"{window.said} (found by probing)")
        hit = _plain_hit(ctx, plain, window)
    if hit is kern.reference:
        rep.check(name, "pass", shapes(probes, plain))
        return kern.reference
    if hit is not None and hit.norm == "extra-logit" and hit.id is None:
        rep.notes.append(f"recognised as {hit.detail}: the weights sum to less than one")
        rep.check(name, "pass", f"as {hit.detail}; {shapes(probes, plain)}")
        return hit
    if hit is not None and hit.keep is not None and hit.id != "causal-flag-ignored":
        kern.always_causal = True
        rep.notes.append("no causal flag, but the kernel masks the future by itself")
        rep.check(name, "skip", "the kernel always applies a causal mask")
        return replace(CORRECT, window=kern.reference.window)
    if hit is not None and hit.id is not None:
        rep.check(name, "fail", f"matches the known bug: {hit.detail}")
        msg = f"; the output matches {hit.detail} on every input tried"
        if hit.id == "causal-flag-ignored":
            msg = f": {kern.sig.flag}=False still masks the future"
            ctx.facts["flag stuck"] = True
        # the reference the fix gives keeps the extra logit a kernel chose
        expected = one_more(kern.reference) if hit.norm == "extra-logit" else kern.reference
        rep.titled(hit.id, msg, repro.mismatch(kern, expected, False))
        return hit
    return _unexplained(ctx, plain, name)


def _plain_hit(ctx: Ctx, plain: Outs, window: Window | None = None) -> Variant | None:
    """The reference or the first variant the unmasked outputs match, within `window`."""
    kern = ctx.kern
    # a flag that cannot be turned off; with no flag, the kernel may mask the future by itself
    stuck = Variant("causal-flag-ignored", "causal even with the flag off", keep="causal")
    causal = [stuck] if kern.sig.flag is not None else [CAUSAL, *causal_bugs(CORRECT)]
    # the scale bugs under a softmax with the extra logit too: T5 scales nothing by design
    bugs = [*NONCAUSAL_BUGS, *(one_more(v) for v in NONCAUSAL_BUGS if v.norm == "softmax")]
    candidates = [replace(v, window=window) for v in [*causal, *bugs]]
    # a window that hides the future by itself (a band before each query) is causal first
    order = [kern.reference, candidates[0]][:: -1 if window else 1]
    # the reference with the extra zero logit some models are trained with, before any bug
    tried = [*order, one_more(kern.reference), *candidates[1:]]
    return next((v for v in tried if matches(v, ctx.probes, plain, kern.lp)), None)


def window_seen(ctx: Ctx, causal: bool = False) -> Window | None:
    """The local window the kernel keeps to (Mistral's sliding window, local-attention's
    blocks), probed one key and its value at a time on the probe nearest 16 positions long."""
    kern = ctx.kern
    p = min(ctx.probes, key=lambda p: abs(p.shape[0] - 16))
    kv, tol = np.stack([p.k, p.v]), tolerance(p.q, p.k, p.v, kern.lp)
    return local_window(lambda kv: kern.answer(p.q, kv[0], kv[1], causal), kv, tol)


def _unexplained(ctx: Ctx, plain: Outs, name: str) -> Variant | None:
    """No known variant matched: try the properties and the fitted scales."""
    kern, rep, probes = ctx.kern, ctx.rep, ctx.probes
    outs = [o for o in plain if not isinstance(o, str)]
    if any(not np.isfinite(o).all() for o in outs):
        rep.check(name, "fail", "NaN or inf in the output")
        ctx.facts["nonfinite"] = True
        rep.titled("nonfinite-output", " (no mask)", repro.mismatch(kern, CORRECT, False))
        return None
    if tiles.diagnose(ctx, kern.reference, passed=False):
        return None
    sums = _row_sums(kern, probes)
    if sums is not None and np.max(np.abs(sums - 1.0)) > max(1e-4, 16 * kern.lp.eps):
        span = _span(sums)
        rep.check(name, "fail", f"weights sum to {span}")
        rep.titled(
            "weights-not-normalized",
            f": row sums range over {span}",
            repro.mismatch(kern, CORRECT, False),
        )
        return None
    fitted = _fit(ctx, plain)
    if fitted is not None and fitted.keep is not None:
        # A built-in causal mask (a registered tril buffer): the fit read the kept weights.
        kern.always_causal = True
        rep.notes.append("no causal flag, but the kernel masks the future by itself")
        fitted = replace(fitted, keep=None)
    expected = CAUSAL if kern.always_causal else kern.reference
    if fitted is not None and fitted.id is None:
        rep.notes.append(f"recognised as {fitted.detail}")
        rep.check(name, "pass", f"as {fitted.detail}; {shapes(probes, plain)}")
        return fitted
    if fitted is not None:
        rep.check(name, "fail", fitted.detail)
        rep.titled("scale-wrong", f": {fitted.detail}", repro.mismatch(kern, expected, False))
        return fitted if np.isfinite(fitted.p) else None  # a constant scale can be a base
    rep.check(name, "fail", "differs from the reference; matches no known bug")
    rep.titled("wrong-output", " (no mask)", repro.mismatch(kern, CORRECT, False))
    return None


def _span(sums: Array) -> str:
    """`0.99971 .. 1.0002`: the range of the row sums, with the digits that show it is not 1."""
    off = float(np.max(np.abs(sums - 1.0)))
    digits = max(4, int(np.ceil(-np.log10(off))) + 2) if 0 < off < 1 else 4
    return f"{sums.min():.{digits}g} .. {sums.max():.{digits}g}"


def _row_sums(kern: Kernel, probes: list[Probe]) -> Array | None:
    """Sum of each row of weights, read off with every value row equal to the same vector."""
    sums = []
    for p in probes[:4]:
        w = np.random.default_rng(5).standard_normal(p.v.shape[1]) + 2.0
        out = kern.answer(p.q, p.k, np.tile(w, (p.shape[0], 1)))
        if out is None:
            continue
        sums.append(out @ w / (w @ w))
    return np.concatenate(sums) if sums else None


def _fit(ctx: Ctx, plain: Outs) -> Variant | None:
    """Fit softmax(alpha q k^T), or QK-norm with temperature t, to the read-off weights.

    Returns a legit QK-norm variant (id None), a scale-wrong variant, or None.
    """
    kern, probes = ctx.kern, ctx.probes
    used = [(p, o) for p, o in zip(probes[::2], plain[::2], strict=True) if not isinstance(o, str)]
    found = _fitted_slopes(kern, [p for p, _ in used])
    if found is None or not used:
        return None
    fits, causal = found
    mask = "causal" if causal else None
    ds = np.array([p.shape[1] for p, _ in used], dtype=float)
    for name, slopes in fits.items():
        hit = _constant_fit(ctx, plain, name, np.array(slopes), ds, mask)
        if hit is not None:
            return hit
    return _power_law(kern, probes, plain, ds, np.array(fits["alpha"]), mask)


def _fitted_slopes(kern: Kernel, used: list[Probe]) -> tuple[dict[str, list[float]], bool] | None:
    """Per score form (alpha: q k^T; cosine; centered), the slope of the log-weights on it for
    each probe (one seed per shape is enough), and whether every weight above the diagonal is
    exactly 0; None when the weights cannot be read or are not all positive."""
    fits: dict[str, list[float]] = {"alpha": [], "cosine": [], "centered": []}
    causal: bool | None = None
    for p in used:
        a = weights(kern, p.q, p.k, False)
        if a is None or not np.isfinite(a).all():
            return None
        future = np.triu(np.ones(a.shape, dtype=bool), k=1)
        masked_here = bool((a[future] == 0).all())
        causal = masked_here if causal is None else causal
        keep = ~future if causal else np.ones(a.shape, dtype=bool)
        if masked_here != causal or (a[keep] <= 0).any():
            return None
        logs = _centred(np.log(np.where(keep, a, 1.0)), keep)
        for name, found in fits.items():
            score = SCORES[name](p.q, p.k, 1.0)
            assert score is not None  # q k^T, cosine and correlation are defined on any shapes
            x = _centred(score, keep)
            found.append(float((logs * x).sum() / (x * x).sum()))
    return fits, bool(causal)


def _constant_fit(
    ctx: Ctx, plain: Outs, name: str, c: Array, ds: Array, mask: str | None
) -> Variant | None:
    """The variant a slope constant across shapes (as it is, or times sqrt(d)) gives, when
    it matches every output: a wrong constant scale, QK-norm attention, or None."""
    for scores, par in ((name, c), (f"{name}-d", c / np.sqrt(ds))):
        if scores == "alpha-d" or np.ptp(par) > 1e-3 * np.max(np.abs(par)):
            continue  # the parameter must be one constant across shapes
        v = Variant(None, "", scores, keep=mask, p=float(par.mean()))
        if not matches(v, ctx.probes, plain, ctx.kern.lp):
            continue
        if name == "alpha":
            detail = f"divides the scores by a constant {1 / v.p:.4g} instead of sqrt(d)"
            return Variant("scale-wrong", detail, "alpha", keep=mask, p=v.p)
        how = "cosine of q and k" if name == "cosine" else "correlation of q and k"
        t = f"{v.p:.3g}" + (" * sqrt(d)" if scores.endswith("-d") else "")
        detail = f"QK-norm attention: softmax(t * {how}) v, t = {t}"
        return Variant(None, detail, scores, keep=mask, p=v.p)
    return None


def _centred(x: Array, keep: Array) -> Array:
    """`x` minus its mean over the kept entries of each row; 0 where not kept."""
    count = keep.sum(axis=1, keepdims=True)
    mean = np.where(keep, x, 0.0).sum(axis=1, keepdims=True) / count
    return np.where(keep, x - mean, 0.0)


def _power_law(
    kern: Kernel, probes: list[Probe], plain: Outs, ds: Array, alpha: Array, mask: str | None
) -> Variant | None:
    """A scale c * d**g with g != -1/2 (say, only q scaled by d**-0.25); p is NaN: no base."""
    if len(set(ds)) < 2 or (alpha <= 0).any():
        return None
    g, log_c = np.polyfit(np.log(ds), np.log(alpha), 1)
    if np.max(np.abs(np.log(alpha) - (log_c + g * np.log(ds)))) > 1e-3:
        return None
    for p, o in zip(probes, plain, strict=True):
        v = Variant(None, "", "alpha", keep=mask, p=float(np.exp(log_c) * p.shape[1] ** g))
        if not isinstance(o, str) and not matches(v, [p], [o], kern.lp):
            return None
    c = float(np.exp(log_c))
    times = f"{c:.3g} * " if abs(c - 1) > 1e-3 else ""
    detail = f"scales the scores by {times}d^{g:.3g} instead of d^-0.5 = 1/sqrt(d)"
    return Variant("scale-wrong", detail, "alpha", keep=mask, p=float("nan"))
