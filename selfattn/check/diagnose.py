"""The kernel's rules: same output, its mask arguments and every shape, the reference without
the mask (unmasked.py) and with it (causal.py), the flag a module says, padding masks."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from . import repro, tiles
from .causal import diagnose_causal
from .context import Ctx, Outs, gather, make_probes, matches, shapes
from .frameworks import LAYOUTS, CallFailed
from .kernel import Kernel
from .masks import MASK_KINDS, make_mask, probe_mask
from .names import named
from .questions import same_output as repeats
from .questions import switch_by_effect
from .reference import (
    CORRECT,
    KEEP,
    Variant,
    masked,
    tolerance,
)
from .report import Report
from .unmasked import diagnose_plain

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
    (`steady`). As many calls as a layer's (questions.CALLS), on the first probe."""
    kern, rep, p = ctx.kern, ctx.rep, ctx.probes[0]
    ctx.facts["steady"] = True
    try:
        moved = repeats(lambda: kern.call(p.q, p.k, p.v))
    except CallFailed:
        return  # said by the checks that run every shape
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
        f"a = {repro.call_text(kern, False)}",
        f"b = {repro.call_text(kern, False)}",
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
        f"out = {repro.call_text(ctx.kern, False)}",
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
    base = diagnose_plain(ctx, ctx.facts["plain"])
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
    if kern.always_causal and diagnose_causal(ctx, plain, plain, base):
        carriers.append("")  # right, and carried by nothing: the kernel masks by itself
    for name in drivers if not kern.always_causal else ():
        kern.drive(name)
        via = f" via `{name}`" if len(drivers) > 1 else ""
        if kern.mask_kind == "ignored":
            _mask_ignored(ctx, name, via)
            continue
        causal = gather(kern, ctx.probes, causal=True)
        if diagnose_causal(ctx, plain, causal, base, via):
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
    lines += [f"out = {repro.call_text(kern, False, masked=True)}", "print(out)"]
    lines.append("# v is zero except on the padded keys, so out should be all 0")
    return "\n".join([*lines, "# got:", *repro.show(out)])
