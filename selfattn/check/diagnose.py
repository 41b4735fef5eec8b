"""Diagnosing a kernel: the reference without and with the causal mask, and the known bugs."""

from __future__ import annotations

import numpy as np

from . import repro, stress
from .context import Ctx, Outs, Probe, gather, make_probes, matches, shapes, title
from .probe import MASK_KINDS, CallFailed, Kernel, detect_mask_kind
from .reference import (
    CAUSAL,
    CORRECT,
    NONCAUSAL_BUGS,
    Variant,
    causal_bugs,
    masked,
    tolerance,
)
from .report import Report

Array = np.ndarray


# -- entry point -----------------------------------------------------------------------------


def check_kernel(kern: Kernel, rep: Report, imp: str) -> None:
    """Run every kernel check on `kern`, adding checks and findings to `rep`."""
    rep.kind = "kernel"
    rep.backend = f"{kern.backend.name} {kern.backend.dtype} inputs"
    if kern.sig.mask is not None and kern.sig.flag is None:
        kern.mask_kind = detect_mask_kind(kern)
        rep.notes.append(f"mask argument `{kern.sig.mask}`: assumed {MASK_KINDS[kern.mask_kind]}")
    elif kern.sig.flag is not None:
        rep.notes.append(f"causal mask through the flag `{kern.sig.flag}`")
    ctx = Ctx(kern, rep, imp, make_probes())
    plain = gather(kern, ctx.probes, causal=False)
    _failures(ctx, plain)
    base = _diagnose_plain(ctx, plain)
    if kern.has_causal:
        causal = plain if kern.always_causal else gather(kern, ctx.probes, causal=True)
        if kern.mask_kind == "ignored":
            rep.add(
                "causal-flag-ignored",
                f"{title('causal-flag-ignored')}: "
                f"no mask passed as `{kern.sig.mask}` changes the output",
                repro.leak(kern, imp),
            )
            rep.check("causal mask", "fail", "the mask argument is ignored")
        else:
            _diagnose_causal(ctx, plain, causal, base)
    else:
        rep.check("causal mask", "skip", "no causal flag or mask argument")
    if kern.backend.name == "torch" and base is not None:
        stress.batched(ctx, base)
    stress.extremes(ctx, plain)
    stress.long_key(ctx)


def _failures(ctx: Ctx, plain: Outs) -> None:
    """Calls that raised or returned junk on some shapes (the first call worked)."""
    failed = [(p, o) for p, o in zip(ctx.probes, plain, strict=True) if isinstance(o, str)]
    if not failed:
        ctx.rep.check("runs on every shape", "pass", shapes(ctx.probes))
        return
    square_only = all(
        isinstance(o, str) == (p.shape[0] != p.shape[1])
        for p, o in zip(ctx.probes, plain, strict=True)
    )
    p, why = failed[0]
    n, d = p.shape
    where = ", ".join(dict.fromkeys(f"{q.shape[0]}x{q.shape[1]}" for q, _ in failed))
    ctx.rep.check("runs on every shape", "fail", f"fails on n x d = {where}: {why}")
    lines = [
        *repro.head(ctx.kern, ctx.imp),
        *repro.random_inputs(ctx.kern, 0, n, d),
        f"out = {ctx.kern.call_text(False)}",
        f"# {why}",
    ]
    if square_only:
        ctx.rep.add(
            "key-transpose",
            f"{title('key-transpose')}: works only when n == d; with n != d: {why}",
            "\n".join(lines),
        )
    else:
        ctx.rep.add("fails-on-valid-input", f"fails on n x d = {where}: {why}", "\n".join(lines))


# -- without the mask ------------------------------------------------------------------------


def _diagnose_plain(ctx: Ctx, plain: Outs) -> Variant | None:
    """Compare the unmasked output with the reference and name the bug.

    Returns what the kernel does without a mask (the reference, a known bug, or None when
    unknown), for the causal checks to build on.
    """
    kern, rep, probes = ctx.kern, ctx.rep, ctx.probes
    name = "matches float64 reference attention (no mask)"
    if matches(CORRECT, probes, plain, kern.lp):
        rep.check(name, "pass", shapes(probes, plain))
        return CORRECT
    candidates: list[Variant] = []
    if kern.has_causal:  # a flag that cannot be turned off
        candidates.append(
            Variant("causal-flag-ignored", "causal even with the flag off", keep="causal")
        )
    else:  # no flag or mask: the kernel may mask the future by itself
        candidates += [CAUSAL, *causal_bugs(CORRECT)]
    candidates += NONCAUSAL_BUGS
    hit = next((v for v in candidates if matches(v, probes, plain, kern.lp)), None)
    if hit is not None and hit.keep is not None and hit.id != "causal-flag-ignored":
        kern.always_causal = True
        rep.notes.append("no causal flag, but the kernel masks the future by itself")
        rep.check(name, "skip", "the kernel always applies a causal mask")
        return CORRECT
    if hit is not None and hit.id is not None:
        rep.check(name, "fail", f"matches the known bug: {hit.detail}")
        msg = f"{title(hit.id)}; the output matches {hit.detail} on every input tried"
        if hit.id == "causal-flag-ignored":
            msg = f"{title(hit.id)}: {kern.sig.flag}=False still masks the future"
        rep.add(hit.id, msg, repro.mismatch(kern, CORRECT, False, ctx.imp))
        return hit
    return _unexplained(ctx, plain, name)


def _unexplained(ctx: Ctx, plain: Outs, name: str) -> Variant | None:
    """No known variant matched: try the properties and the fitted scales."""
    kern, rep, probes = ctx.kern, ctx.rep, ctx.probes
    outs = [o for o in plain if not isinstance(o, str)]
    if any(not np.isfinite(o).all() for o in outs):
        rep.check(name, "fail", "NaN or inf in the output")
        rep.add(
            "nonfinite-output",
            f"{title('nonfinite-output')} (no mask)",
            repro.mismatch(kern, CORRECT, False, ctx.imp),
        )
        return None
    sums = _row_sums(kern, probes)
    if sums is not None and np.max(np.abs(sums - 1.0)) > max(1e-4, 16 * kern.lp.eps):
        rep.check(name, "fail", f"weights sum to {sums.min():.4g} .. {sums.max():.4g}")
        rep.add(
            "weights-not-normalized",
            f"{title('weights-not-normalized')}: row sums range over "
            f"{sums.min():.4g} .. {sums.max():.4g}",
            repro.mismatch(kern, CORRECT, False, ctx.imp),
        )
        return None
    fitted = _fit(ctx, plain)
    if fitted is not None and fitted.id is None:
        rep.notes.append(f"recognised as {fitted.detail}")
        rep.check(name, "pass", f"as {fitted.detail}; {shapes(probes, plain)}")
        return fitted
    if fitted is not None:
        rep.check(name, "fail", fitted.detail)
        rep.add(
            "scale-wrong",
            f"{title('scale-wrong')}: {fitted.detail}",
            repro.mismatch(kern, CORRECT, False, ctx.imp),
        )
        return fitted if np.isfinite(fitted.p) else None  # a constant scale can be a base
    rep.check(name, "fail", "differs from the reference; matches no known bug")
    rep.add(
        "wrong-output",
        f"{title('wrong-output')} (no mask)",
        repro.mismatch(kern, CORRECT, False, ctx.imp),
    )
    return None


def _row_sums(kern: Kernel, probes: list[Probe]) -> Array | None:
    """Sum of each row of weights, read off with every value row equal to the same vector."""
    sums = []
    for p in probes[:4]:
        w = np.random.default_rng(5).standard_normal(p.v.shape[1]) + 2.0
        try:
            out = kern.call(p.q, p.k, np.tile(w, (p.shape[0], 1)), causal=False)
        except CallFailed:
            continue
        sums.append(out @ w / (w @ w))
    return np.concatenate(sums) if sums else None


def weights(kern: Kernel, q: Array, k: Array, causal: bool) -> Array | None:
    """The weight matrix, read off with one-hot values (attention is linear in v)."""
    n, d = q.shape
    a = np.zeros((n, n))
    for start in range(0, n, d):
        cols = list(range(start, min(n, start + d)))
        v = np.zeros((n, d))
        v[cols, range(len(cols))] = 1.0
        try:
            out = kern.call(q, k, v, causal)
        except CallFailed:
            return None
        a[:, cols] = out[:, : len(cols)]
    return a


def _fit(ctx: Ctx, plain: Outs) -> Variant | None:
    """Fit softmax(alpha q k^T), or QK-norm with temperature t, to the read-off weights.

    Returns a legit QK-norm variant (id None), a scale-wrong variant, or None.
    """
    kern, probes = ctx.kern, ctx.probes
    fits: dict[str, list[float]] = {"alpha": [], "cosine": [], "centered": []}
    used = [(p, o) for p, o in zip(probes[::2], plain[::2], strict=True) if not isinstance(o, str)]
    for p, _ in used:  # one seed per shape is enough to fit
        a = weights(kern, p.q, p.k, False)
        if a is None or not np.isfinite(a).all() or (a <= 0).any():
            return None
        logs = np.log(a) - np.log(a).mean(axis=1, keepdims=True)
        for name, found in fits.items():
            x = _score(name, p)
            x = x - x.mean(axis=1, keepdims=True)
            found.append(float((logs * x).sum() / (x * x).sum()))
    if not used:
        return None
    ds = np.array([p.shape[1] for p, _ in used], dtype=float)
    for name, found in fits.items():
        c = np.array(found)
        for scores, par in ((name, c), (f"{name}-d", c / np.sqrt(ds))):
            if scores == "alpha-d" or np.ptp(par) > 1e-3 * np.max(np.abs(par)):
                continue  # the parameter must be one constant across shapes
            v = Variant(None, "", scores, p=float(par.mean()))
            if not matches(v, probes, plain, kern.lp):
                continue
            if name == "alpha":
                detail = f"divides the scores by a constant {1 / v.p:.4g} instead of sqrt(d)"
                return Variant("scale-wrong", detail, "alpha", p=v.p)
            how = "cosine of q and k" if name == "cosine" else "correlation of q and k"
            t = f"{v.p:.3g}" + (" * sqrt(d)" if scores.endswith("-d") else "")
            return Variant(None, f"QK-norm attention: softmax(t * {how}) v, t = {t}", scores, p=v.p)
    return _power_law(kern, probes, plain, ds, np.array(fits["alpha"]))


def _power_law(
    kern: Kernel, probes: list[Probe], plain: Outs, ds: Array, alpha: Array
) -> Variant | None:
    """A scale c * d**g with g != -1/2 (say, only q scaled by d**-0.25); p is NaN: no base."""
    if len(set(ds)) < 2 or (alpha <= 0).any():
        return None
    g, log_c = np.polyfit(np.log(ds), np.log(alpha), 1)
    if np.max(np.abs(np.log(alpha) - (log_c + g * np.log(ds)))) > 1e-3:
        return None
    for p, o in zip(probes, plain, strict=True):
        v = Variant(None, "", "alpha", p=float(np.exp(log_c) * p.shape[1] ** g))
        if not isinstance(o, str) and not matches(v, [p], [o], kern.lp):
            return None
    c = float(np.exp(log_c))
    times = f"{c:.3g} * " if abs(c - 1) > 1e-3 else ""
    detail = f"scales the scores by {times}d^{g:.3g} instead of d^-0.5 = 1/sqrt(d)"
    return Variant("scale-wrong", detail, "alpha", p=float("nan"))


def _score(name: str, p: Probe) -> Array:
    q, k = p.q, p.k
    if name == "alpha":
        return q @ k.T
    if name == "centered":
        q, k = q - q.mean(1, keepdims=True), k - k.mean(1, keepdims=True)
    return (q / np.linalg.norm(q, axis=1, keepdims=True)) @ (
        k / np.linalg.norm(k, axis=1, keepdims=True)
    ).T


# -- with the causal mask --------------------------------------------------------------------


def _diagnose_causal(ctx: Ctx, plain: Outs, causal: Outs, base: Variant | None) -> None:
    """Leak test, flag-ignored test, then the causal output against the known mask bugs.

    `base` is what the kernel does without a mask; a mask bug is judged relative to it, so a
    kernel with the wrong scale but a correct mask gets only the scale finding.
    """
    kern, rep, probes = ctx.kern, ctx.rep, ctx.probes
    leaks = _leaks(kern, probes, causal)
    leak_check = "no future leak: output i ignores keys and values after i"
    rep.check(leak_check, "fail" if leaks else "pass", leaks or shapes(probes, causal))
    name = "causal mask applied as in the reference"
    flag_stuck = "causal-flag-ignored" in rep.ids  # causal=False already masked: seen above
    if not kern.always_causal and not flag_stuck and _same(kern, probes, plain, causal):
        rep.check(name, "fail", "the causal output equals the unmasked one")
        msg = f"{title('causal-flag-ignored')}: "
        msg += (
            f"{kern.sig.flag}=True gives the unmasked output"
            if kern.sig.flag
            else f"a causal mask passed as `{kern.sig.mask}` gives the unmasked output"
        )
        rep.add("causal-flag-ignored", msg, repro.leak(kern, ctx.imp))
        return
    if base is not None and not leaks and matches(masked(base), probes, causal, kern.lp):
        rep.check(name, "pass", shapes(probes, causal))
        return
    fill = _fill(kern) if leaks else None
    bugs = causal_bugs(base, fill) if base is not None else ()
    hit = next((v for v in bugs if matches(v, probes, causal, kern.lp)), None)
    if hit is not None and hit.id is not None:
        rep.check(name, "fail", f"matches the known bug: {hit.detail}")
        msg = f"{title(hit.id)}; the causal output matches {hit.detail}"
        if hit.id == "causal-mask-multiplied" and not kern.wide:
            msg += " (or a fill too small for float32 to tell from 0, such as -1e-12)"
        how = repro.leak(kern, ctx.imp) if leaks else ""
        rep.add(hit.id, msg, how or repro.mismatch(kern, CAUSAL, True, ctx.imp))
        return
    outs = [o for o in causal if not isinstance(o, str)]
    if leaks:
        rep.check(name, "fail", "future positions reach the output")
        rep.add("causal-leak", f"{title('causal-leak')}: {leaks}", repro.leak(kern, ctx.imp))
    elif base is None:
        rep.check(name, "skip", "the unmasked output is already wrong in an unknown way")
    elif any(not np.isfinite(o).all() for o in outs):
        rep.check(name, "fail", "NaN or inf in the output")
        rep.add(
            "nonfinite-output",
            f"{title('nonfinite-output')} (causal)",
            repro.mismatch(kern, CAUSAL, True, ctx.imp),
        )
    else:
        rep.check(name, "fail", "differs from the reference; matches no known bug")
        rep.add(
            "wrong-output",
            f"{title('wrong-output')} (causal)",
            repro.mismatch(kern, CAUSAL, True, ctx.imp),
        )


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
        rng = np.random.default_rng([n, 3])
        for i in sorted({0, n // 2, n - 2}):
            k2, v2 = p.k.copy(), p.v.copy()
            k2[i + 1 :] = rng.standard_normal(k2[i + 1 :].shape) * 2
            v2[i + 1 :] = rng.standard_normal(v2[i + 1 :].shape) * 2
            try:
                moved = repro.moved(out[: i + 1], kern.call(p.q, k2, v2, True)[: i + 1])
            except CallFailed:
                continue
            if moved > tol and moved / tol > worst[0]:
                text = (
                    f"changing only positions > {i} moved outputs 0..{i} by {moved:.3g} "
                    f"(tolerance {tol:.2g}; n x d = {n}x{p.shape[1]})"
                )
                worst = (moved / tol, text)
    return worst[1]


def _fill(kern: Kernel) -> float | None:
    """The value the future scores are replaced with, read off with all-zero queries.

    With q = 0 every real score is exactly 0, so weight(future) / weight(past) = exp(fill):
    exactly 1 when the scores were multiplied by 0. None when the rows do not fit a fill.
    """
    n, d = 5, 8
    k = np.random.default_rng(11).standard_normal((n, d))
    try:
        out = kern.call(np.zeros((n, d)), k, np.eye(n, d), True)
    except CallFailed:
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
