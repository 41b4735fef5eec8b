"""Diagnosing a kernel with the causal mask: the leak test, a mask applied right, and which
known causal-mask bug the outputs match."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from . import repro
from .context import Ctx, Outs, Probe, matches, shapes
from .findings import causal_bugs
from .kernel import Kernel
from .questions import future_leaks
from .reference import (
    CAUSAL,
    Variant,
    masked,
    tolerance,
)
from .unmasked import window_seen

Array = np.ndarray


def diagnose_causal(
    ctx: Ctx, plain: Outs, causal: Outs, base: Variant | None, via: str = ""
) -> bool:
    """Leak test, flag-ignored test, then the causal output against the known mask bugs.

    `base` is what the kernel does without a mask; a mask bug is judged relative to it, so a
    kernel with the wrong scale but a correct mask gets only the scale finding. Returns
    whether the causal mask is applied as in the reference.
    """
    kern, rep, probes = ctx.kern, ctx.rep, ctx.probes
    leaks = _leaks(kern, probes, causal)
    leak_check = f"no future leak{via}: output i ignores keys and values after i"
    rep.check(leak_check, "fail" if leaks else "pass", leaks or shapes(probes, causal))
    name = f"causal mask{via} applied as in the reference"
    flag_stuck = ctx.facts.get("flag stuck", False)  # causal=False already masked
    if not kern.always_causal and not flag_stuck and _same(kern, probes, plain, causal):
        _unmasked(ctx, name)
        return False
    if base is not None and not leaks and _masked_right(ctx, base, causal, name):
        return True
    fill = _fill(kern) if leaks else None
    bugs = causal_bugs(base, fill) if base is not None else ()
    hit = next((v for v in bugs if matches(v, probes, causal, kern.lp)), None)
    if hit is not None and hit.id is not None:
        _causal_bug(ctx, hit, name, via, leaks)
    else:
        _causal_unexplained(ctx, causal, base, name, leaks)
    return False


def _unmasked(ctx: Ctx, name: str) -> None:
    """The causal output equals the unmasked one: the flag or mask is ignored."""
    kern, rep = ctx.kern, ctx.rep
    rep.check(name, "fail", "the causal output equals the unmasked one")
    how = f"{kern.flag}=True" if kern.flag else f"a causal mask passed as `{kern.mask}`"
    rep.titled("causal-flag-ignored", f": {how} gives the unmasked output", repro.leak(kern))
    ctx.facts["flag stuck"] = True


def _masked_right(ctx: Ctx, base: Variant, causal: Outs, name: str) -> bool:
    """Whether the causal output is `base` masked, with or without a sliding window."""
    probes, rep, lp = ctx.probes, ctx.rep, ctx.kern.lp
    if matches(masked(base), probes, causal, lp):
        rep.check(name, "pass", shapes(probes, causal))
        return True
    window = window_seen(ctx, causal=True)
    if window is None or not matches(replace(masked(base), window=window), probes, causal, lp):
        return False
    rep.notes.append(f"{window.said} (found by probing)")
    rep.check(name, "pass", f"{shapes(probes, causal)}; within that window")
    return True


def _causal_bug(ctx: Ctx, hit: Variant, name: str, via: str, leaks: str) -> None:
    """The causal output matches a known mask bug."""
    kern, rep = ctx.kern, ctx.rep
    assert hit.id is not None
    rep.check(name, "fail", f"matches the known bug: {hit.detail}")
    msg = f"; the causal output{via} matches {hit.detail}"
    if hit.id == "causal-mask-multiplied" and not kern.wide:
        tiny = "-1e-12" if kern.lp.name == "float32" else "-1e-6"
        msg += f" (or a fill too small for {kern.lp.name} to tell from 0, such as {tiny})"
    how = repro.leak(kern) if leaks else ""
    rep.titled(hit.id, msg, how or repro.mismatch(kern, CAUSAL, True))


def _causal_unexplained(
    ctx: Ctx, causal: Outs, base: Variant | None, name: str, leaks: str
) -> None:
    """The causal output is wrong in no known way: a leak, NaN, or just wrong."""
    kern, rep = ctx.kern, ctx.rep
    outs = [o for o in causal if not isinstance(o, str)]
    if leaks:
        rep.check(name, "fail", "future positions reach the output")
        rep.titled("causal-leak", f": {leaks}", repro.leak(kern))
    elif base is None:
        rep.check(name, "skip", "the unmasked output is already wrong in an unknown way")
    elif any(not np.isfinite(o).all() for o in outs):
        rep.check(name, "fail", "NaN or inf in the output")
        ctx.facts["nonfinite"] = True
        rep.titled("nonfinite-output", " (causal)", repro.mismatch(kern, CAUSAL, True))
    else:
        rep.check(name, "fail", "differs from the reference; matches no known bug")
        rep.titled("wrong-output", " (causal)", repro.mismatch(kern, CAUSAL, True))


def _same(kern: Kernel, probes: list[Probe], a: Outs, b: Outs) -> bool:
    """Whether two sets of outputs are equal within tolerance on every input."""
    seen = 0
    for p, x, y in zip(probes, a, b, strict=True):
        if isinstance(x, str) or isinstance(y, str):
            continue
        if not (np.isfinite(x).all() and np.isfinite(y).all()):
            return False
        if np.max(np.abs(x - y)) > tolerance(p.q, p.k, p.v, kern.lp):
            return False
        seen += 1
    return seen > 0


def _leaks(kern: Kernel, probes: list[Probe], causal: Outs) -> str:
    """Perturb keys and values after position i; say where output i moved ("" if nowhere)."""
    worst: tuple[float, str] = (0.0, "")
    for p, out in zip(probes, causal, strict=True):
        n = p.shape[0]
        if isinstance(out, str) or n < 2:
            continue
        tol = tolerance(p.q, p.k, p.v, kern.lp, CAUSAL)
        for i, rows, _ in future_leaks(out, sorted({0, n // 2, n - 2}), _later(kern, p)):
            moved = float(rows.max())
            if moved > tol and moved / tol > worst[0]:
                text = (
                    f"changing only positions > {i} moved outputs 0..{i} by {moved:.3g} "
                    f"(tolerance {tol:.2g}; n x d = {n}x{p.shape[1]})"
                )
                worst = (moved / tol, text)
    return worst[1]


def _later(kern: Kernel, p: Probe) -> Callable[[int], Array | None]:
    """The causal output when keys and values after position i are drawn anew."""
    rng = np.random.default_rng([p.shape[0], 3])

    def changed(i: int) -> Array | None:
        k2, v2 = p.k.copy(), p.v.copy()
        k2[i + 1 :] = rng.standard_normal(k2[i + 1 :].shape) * 2
        v2[i + 1 :] = rng.standard_normal(v2[i + 1 :].shape) * 2
        return kern.answer(p.q, k2, v2, True)

    return changed


def _fill(kern: Kernel) -> float | None:
    """The value the future scores are replaced with, read off with all-zero queries.

    With q = 0 every real score is exactly 0, so weight(future) / weight(past) = exp(fill):
    exactly 1 when the scores were multiplied by 0. None when the rows do not fit a fill.
    """
    n, d = 5, 8
    k = np.random.default_rng(11).standard_normal((n, d))
    out = kern.answer(np.zeros((n, d)), k, np.eye(n, d), True)
    if out is None:
        return None
    a = out[:, :n]
    with np.errstate(all="ignore"):
        r = np.array([a[i, j] / a[i, 0] for i in range(n - 1) for j in range(i + 1, n)])
    if not np.isfinite(r).all() or (r <= 0).any():
        return None
    if (r == 1.0).all():
        return 0.0
    logs = np.log(r)
    if np.ptp(logs) > 1e-6 * max(1.0, abs(float(logs.mean()))):
        return None
    return float(logs.mean())
