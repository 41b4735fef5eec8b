"""Diagnosing a kernel: the reference without and with the causal mask, and the known bugs."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from . import repro, tiles
from .context import Ctx, Outs, Probe, gather, make_probes, matches, shapes, weights
from .findings import NONCAUSAL_BUGS, causal_bugs
from .frameworks import LAYOUTS, CallFailed
from .kernel import Kernel
from .masks import MASK_KINDS, make_mask, probe_mask
from .names import named
from .questions import future_moved, repeat_moved, switch_by_effect
from .reference import (
    CAUSAL,
    CORRECT,
    KEEP,
    SCORES,
    Variant,
    Window,
    local_window,
    masked,
    one_more,
    tolerance,
)
from .report import Report

Array = np.ndarray
PADDED = KEEP["padded"]


# -- the kernel's rules (rules.RULES runs them in order) ---------------------------------------


def start(kern: Kernel, rep: Report, imp: str) -> Ctx:
    """What the kernel's rules share, on the probes `kern` accepts."""
    rep.kind = "kernel"
    rep.backend = f"{kern.backend.label} inputs"
    kern.imp = imp
    return Ctx(kern, rep, make_probes(kern.shapes))


def same_output(ctx: Ctx) -> None:
    """Calls on the same inputs give the same output (no dropout left on); the rest needs it
    (`steady`). Three calls, not two: on the first probe's 36 weights, dropout at 0.1 keeps the
    very same ones in two calls about once in 1,300 checks, and in three about once in 80,000."""
    kern, rep, p = ctx.kern, ctx.rep, ctx.probes[0]
    ctx.facts["steady"] = True
    try:
        first, *again = (kern.call(p.q, p.k, p.v) for _ in range(3))
    except CallFailed:
        return  # said by the checks that run every shape
    moved = repeat_moved(first, again)
    if moved <= tolerance(p.q, p.k, p.v, kern.lp):
        rep.check("same output for the same input", "pass")
        return
    ctx.facts["steady"] = False
    n, d = p.shape
    detail = f"by up to {moved:.3g} on {n}x{d} inputs"
    rep.check("same output for the same input", "fail", f"two calls differ {detail}")
    lines = [
        *kern.source(),
        *repro.random_inputs(kern, 0, n, d),
        f"a = {kern.call_text(False)}",
        f"b = {kern.call_text(False)}",
        "print(abs(a - b).max())  # the same inputs: should be 0",
    ]
    rep.titled("random-output", f": {detail}", "\n".join(lines))
    _say_how_called(kern, rep)


def mask_arguments(ctx: Ctx) -> None:
    """Which arguments can carry the causal mask (`drivers`); the first carries it for now."""
    kern = ctx.kern
    drivers, mask_notes = _probe_masks(kern)
    _say_how_called(kern, ctx.rep)
    ctx.rep.notes += mask_notes
    kern.drive(drivers[0] if drivers else None)
    ctx.facts["drivers"] = drivers


def runs_on_every_shape(ctx: Ctx) -> None:
    """The unmasked outputs on every probe (`plain`); calls that raised or returned junk on
    some shapes (the first call worked)."""
    ctx.facts["plain"] = plain = gather(ctx.kern, ctx.probes, causal=False)
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
        *ctx.kern.source(),
        *repro.random_inputs(ctx.kern, 0, n, d),
        f"out = {ctx.kern.call_text(False)}",
        f"# {why}",
    ]
    if square_only:
        ctx.rep.titled(
            "key-transpose", f": works only when n == d; with n != d: {why}", "\n".join(lines)
        )
    else:
        ctx.rep.add("fails-on-valid-input", f"fails on n x d = {where}: {why}", "\n".join(lines))


def reference(ctx: Ctx) -> None:
    """What the kernel does without a mask (`base`: the reference, a known bug, or None)."""
    base = _diagnose_plain(ctx, ctx.facts["plain"])
    kern = ctx.kern
    ctx.facts["base"] = base
    ctx.facts["explained"] = base is not None
    ctx.facts["right"] = base is not None and base is kern.reference and not kern.always_causal


def long_tiles(ctx: Ctx) -> None:
    """A right kernel on a tile longer than every short probe."""
    tiles.diagnose(ctx, ctx.facts["base"], passed=True)


def said_causal(ctx: Ctx) -> None:
    """A module whose own `causal` (or `is_causal`) is True, with no flag to pass, must hide
    the future by itself; right without a mask, it does not (xformers' ScaledDotProduct
    applied its causal mask only when a mask was also passed, xformers#103)."""
    kern, fn = ctx.kern, ctx.kern.runner.fn
    said = next((n for n in named("causal attribute") if getattr(fn, n, None) is True), None)
    if said is None or kern.sig.flag is not None:
        return
    carrier, kern.mask = kern.mask, None  # the leak shown with no mask argument given
    how = repro.leak(kern)
    kern.mask = carrier
    ctx.rep.check("causal as its `causal` says", "fail", "output i sees keys after i")
    msg = f": its `{said}` is True, yet with no mask argument every position sees the future"
    ctx.rep.titled("causal-flag-ignored", msg, how)


def causal_mask(ctx: Ctx) -> None:
    """The causal mask through each argument that can carry it (`carriers`: those that do)."""
    kern, rep, drivers = ctx.kern, ctx.rep, ctx.facts["drivers"]
    plain, base = ctx.facts["plain"], ctx.facts["base"]
    carriers = []
    if kern.always_causal and _diagnose_causal(ctx, plain, plain, base):
        carriers.append("")  # right, and carried by nothing: the kernel masks by itself
    for name in drivers if not kern.always_causal else ():
        kern.drive(name)
        via = f" via `{name}`" if len(drivers) > 1 else ""
        if kern.mask_kind == "ignored":
            _mask_ignored(ctx, name, via)
            continue
        causal = gather(kern, ctx.probes, causal=True)
        if _diagnose_causal(ctx, plain, causal, base, via):
            carriers.append(name)
    if not drivers and not kern.always_causal:
        rep.check("causal mask", "skip", "no causal flag or mask argument")
    if len(drivers) > 1:
        said = ", ".join(f"`{c}`" for c in carriers) or "none of them"
        rep.notes.append(
            f"{len(drivers)} ways to ask for the causal mask were each checked; "
            f"a correct one is carried by {said}"
        )
    ctx.facts["carriers"] = carriers


def _mask_ignored(ctx: Ctx, name: str, via: str) -> None:
    kern, rep = ctx.kern, ctx.rep
    rep.titled(
        "causal-flag-ignored",
        f": no mask passed as `{kern.mask}` changes the output",
        repro.leak(kern),
    )
    ctx.facts["flag stuck"] = True
    rep.check(f"causal mask{via}", "fail", f"the mask argument `{name}` is ignored")


def padding(ctx: Ctx) -> None:
    """Padded keys, through every mask argument that takes them."""
    kern = ctx.kern
    for param in kern.masks.values():
        # a kernel causal by itself takes any mask argument as padding (Hugging Face's
        # `attention_mask`): it cannot carry the causal mask, so padded keys are checked
        if (param.form == "padding" or kern.always_causal) and param.kind != "unusable":
            _diagnose_padding(ctx, param.name, ctx.facts["base"])


def carrier(ctx: Ctx) -> None:
    """The causal mask goes through a carrier found right, else the first that has effect."""
    kern, drivers = ctx.kern, ctx.facts["drivers"]
    usable = [d for d in drivers if kern.masks.get(d) is None or kern.masks[d].kind != "ignored"]
    kern.drive((ctx.facts["carriers"] or usable or [None])[0] or None)
    ctx.facts["causal right"] = bool(ctx.facts["carriers"]) and kern.mask_kind != "ignored"


def _say_how_called(kern: Kernel, rep: Report) -> None:
    """Notes on the layout, the argument binding and the extra arguments used."""
    if kern.rounded is not None:
        half = kern.rounded.name
        rep.notes.append(
            f"every output value is a {half} number: the kernel computes in {half} inside "
            f"and casts back, so {half} tolerances apply"
        )
    if kern.layout != "nd":
        rep.notes.append(
            f"layout {kern.layout}: each (n, d) input is passed as {LAYOUTS[kern.layout]}"
        )
    sig = kern.sig
    if sig.by_name and sig.qkv is not None:
        rep.notes.append(f"q, k, v bound by name to `{'`, `'.join(sig.qkv)}`")
    if kern.scale_passed:
        rep.notes.append(f"`{sig.scale}` passed as 1/sqrt(d) of each input")
    _say_arguments(kern, rep)


def _say_arguments(kern: Kernel, rep: Report) -> None:
    """Notes on the arguments passed beside q, k, v, and what the reference follows."""
    sig = kern.sig
    extra = dict(kern.args)
    if sig.dropout is not None and extra.get(sig.dropout) == 0:
        del extra[sig.dropout]
        rep.notes.append(f"`{sig.dropout}` passed as 0.0 (no dropout) for the check")
    if extra:
        said = ", ".join(f"{k}={v!r}" for k, v in extra.items())
        rep.notes.append(f"extra arguments: {said}")
    if kern.reference is not CORRECT:
        passed = [f"`{n}`" for n in (sig.scale, sig.softcap) if n and n in kern.args]
        said = f"the {' and '.join(passed)} passed" if passed else "the kernel's defaults"
        rep.notes.append(f"the reference follows {said}: {kern.reference.detail}")


def _probe_masks(kern: Kernel) -> tuple[list[str], list[str]]:
    """Probe the flag and every mask parameter: those that can carry a causal mask, and notes.

    A mask only some layout accepts moves the kernel to that layout (unless it was forced).
    """
    drivers, notes = [], []
    others = () if kern.layout_forced else tuple(LAYOUTS)
    if kern.sig.flag is None and (found := _flag_by_effect(kern)) is not None:
        kern.sig = replace(kern.sig, flag=found)
        kern.flag, kern.mask = found, None
        notes.append(f"`{found}` changes every output but the last: taken as the causal flag")
    if kern.sig.flag is not None:
        drivers.append(kern.sig.flag)
        notes.append(f"causal mask through the flag `{kern.sig.flag}`")
    for param in kern.masks.values():
        probe_mask(kern, param, others)
        what = "bias" if param.name.lower() in named("bias") else "mask"
        if param.kind == "unusable":
            notes.append(
                f"{what} argument `{param.name}`: no mask of shape (n, n), (1, 1, n, n) or (1, n) "
                "was accepted; not checked"
            )
        elif param.switch is not None:
            notes.append(
                f"{what} argument `{param.name}` has effect only with `{param.switch}=True`: not "
                "a way to ask for the causal mask, not checked"
            )
        elif param.form == "padding":
            notes.append(
                f"{what} argument `{param.name}` is a (batch, n) key-padding mask, assumed "
                f"{MASK_KINDS[param.kind or 'keep']}: it cannot express causality, so padding "
                "is checked instead"
            )
        else:
            shape = " of shape (1, 1, n, n)" if param.form == "batched" else ""
            notes.append(
                f"{what} argument `{param.name}`{shape}: assumed {MASK_KINDS[param.kind or 'keep']}"
            )
            drivers.append(param.name)
    return drivers, notes


def _flag_by_effect(kern: Kernel) -> str | None:
    """A switch (a parameter defaulting to False) that asks for the causal mask under a name of
    its own (`mask_future`, `autoregressive`), found by its effect (hides_the_future)."""
    rng = np.random.default_rng(5)
    q, k, v = rng.standard_normal((3, 6, 4))
    plain = kern.answer(q, k, v)
    if plain is None:
        return None

    def answer_with(name: str) -> np.ndarray | None:
        with kern.passing(**{name: True}):
            return kern.answer(q, k, v)

    return switch_by_effect(kern.sig.switches, answer_with, plain, tolerance(q, k, v, kern.lp))


def _diagnose_padding(ctx: Ctx, name: str, base: Variant | None) -> None:
    """A padded key must get weight exactly 0, and the rest must be attention over the others."""
    kern, rep = ctx.kern, ctx.rep
    saved = kern.flag, kern.mask
    kern.drive(name)
    check_name = f"padded keys (`{name}`) get weight exactly 0"
    try:
        if kern.mask_kind == "ignored":
            rep.check(check_name, "fail", f"`{name}` has no effect on the output")
            rep.titled(
                "padding-mask-leak",
                f": `{name}` has no effect on the output",
                _padding_repro(kern),
            )
            return
        outs: Outs = []
        kept = "causal-padded" if kern.always_causal else "padded"  # a key of KEEP
        sees = masked(base or kern.reference, kept).kept  # a query with no key left: not compared
        for p in ctx.probes:
            n = p.shape[0]
            keep = PADDED(n)
            v = p.v.copy()
            v[keep] = 0.0  # the output is then the weights on the padded keys times their values
            square = np.broadcast_to(keep, (n, n)) if kern.mask_form != "padding" else keep
            padding = make_mask(kern.mask_kind or "keep", square)
            try:
                leaked = kern.call(p.q, p.k, v, mask=padding)
                outs.append(kern.call(p.q, p.k, p.v, mask=padding))
            except CallFailed as exc:
                outs.append(str(exc))
                continue
            leaked = leaked[..., np.asarray(sees(n)).any(axis=-1), :]
            worst = float(np.max(np.abs(leaked))) if np.isfinite(leaked).all() else np.inf
            if worst > 0:
                detail = (
                    f"n x d = {n}x{p.shape[1]}: with the last {n - keep.sum()} keys padded, "
                    f"their values still move the output by {worst:.3g}"
                )
                rep.check(check_name, "fail", detail)
                rep.titled("padding-mask-leak", f": {detail}", _padding_repro(kern))
                return
        rep.check(check_name, "pass", shapes(ctx.probes, outs))
        if base is not None and not matches(masked(base, kept), ctx.probes, outs, kern.lp):
            rep.check(f"attention over the unpadded keys (`{name}`)", "fail")
            rep.titled("wrong-output", f" (with keys padded through `{name}`)")
    finally:
        kern.flag, kern.mask = saved


def _padding_repro(kern: Kernel) -> str:
    """Small inputs where a padded key's value reaches the output."""
    q, k, v = repro.tiny(4, 3, 0)
    keep = PADDED(4)
    v[keep] = 0.0
    out = kern.answer(q, k, v, mask=make_mask(kern.mask_kind or "keep", keep))
    if out is None:
        return ""
    framework = kern.backend.framework
    mask = framework.mask(kern.mask_kind or "keep", framework.array_text(f"[{keep.tolist()}]"))
    lines = [*kern.source(), *repro.literals(kern, q=q, k=k, v=v), f"mask = {mask}"]
    lines += [f"out = {kern.call_text(False, masked=True)}", "print(out)"]
    lines.append("# v is zero except on the padded keys, so out should be all 0")
    return "\n".join([*lines, "# got:", *repro.show(out)])


# -- without the mask ------------------------------------------------------------------------


def _diagnose_plain(ctx: Ctx, plain: Outs) -> Variant | None:
    """Compare the unmasked output with the reference and name the bug.

    Returns what the kernel does without a mask (the reference, a known bug, or None when
    unknown), for the causal checks to build on.
    """
    kern, rep, probes = ctx.kern, ctx.rep, ctx.probes
    name = "matches float64 reference attention (no mask)"
    hit = _plain_hit(ctx, plain)
    if hit is None and (window := _local_window(ctx)) is not None:
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


def _local_window(ctx: Ctx, causal: bool = False) -> Window | None:
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


# -- with the causal mask --------------------------------------------------------------------


def _diagnose_causal(
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
    window = _local_window(ctx, causal=True)
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
        rng = np.random.default_rng([n, 3])
        for i in sorted({0, n // 2, n - 2}):
            k2, v2 = p.k.copy(), p.v.copy()
            k2[i + 1 :] = rng.standard_normal(k2[i + 1 :].shape) * 2
            v2[i + 1 :] = rng.standard_normal(v2[i + 1 :].shape) * 2
            got = kern.answer(p.q, k2, v2, True)
            moved = float(future_moved(out, got, i).max()) if got is not None else 0.0
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
