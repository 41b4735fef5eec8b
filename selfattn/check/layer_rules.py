"""A layer's rules (rules.RULES runs them in order): called once and said how, the same output,
whether it means to hide the future and does, its wiring and reference, its causal flag and
mask argument set, a batch."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from .companions import ways_to_give
from .findings import causal_bugs
from .frameworks import CallFailed
from .kernel import Target
from .layer import BATCH, SIZES, Layer, LayerRun, future_leak
from .layer_bugs import (
    agrees,
    candidates,
    judge,
    mask_that,
    mask_that_hides_the_future,
    read_wiring,
)
from .layer_text import LAYOUT_TEXT, LayerText
from .names import named
from .projections import Projections, Suspect, causal_intent
from .questions import same_output as repeats
from .questions import switch_by_effect
from .reference import (
    CAUSAL,
    CORRECT,
    local_window,
)
from .report import Report
from .rotary import ON_EACH_CALL, Rotary, held_at, rotations, still_open
from .runner import TargetError

Array = np.ndarray


def start(
    t: Target,
    module: Any,
    proj: Projections,
    masks: list[str],
    rep: Report,
    imp: str,
    zeroed: list[str],
) -> LayerRun:
    """Call the layer once, and say how; `masks` are its mask arguments, and `zeroed` the
    angles of a rotation it makes itself, held at angle 0 meanwhile (rotary.angles_at_zero)."""
    sig, name = t.sig, t.name
    args = {**t.args, **_required(sig.params, masks, t.args)}
    # the dtype of its weights: a Keras Dropout's seed is an integer parameter
    floats = (p for p in module.parameters() if p.is_floating_point())
    layer = Layer(t.runner, proj, next(floats, next(iter(module.parameters()))).dtype)
    layer.args = args
    n0, s0 = SIZES[0]
    x0 = layer.x(n0, s0)
    turned = bool(proj.holder) and proj.time_first and _turns_x(layer, x0)
    if turned:
        layer.proj = proj = replace(proj, time_first=False)
    try:
        rotaries = rotations(sig.params, args, proj.head_size, proj.inputs)
        first = _first_call(layer, x0, rotaries, still_open(sig.params, args, proj.inputs))
    except CallFailed as exc:
        shape = f"(1, {n0}, {proj.width}) {layer.dtype_name}"
        raise TargetError(
            f"{rep.called_as or name} could not be called with x of shape {shape} alone: {exc}. "
            "Give its other arguments with --arg NAME=VALUE, or check the attention function "
            "it calls (e.g. eager_attention_forward) as a kernel"
        ) from None
    rep.kind = "layer"
    layer.sizes = _lengths_taken(layer, rep)
    if ON_EACH_CALL not in zeroed:  # it asked for no cos or sin: no mode to slow its calls
        t.runner.around = None
    _say_how_called(layer, rep, turned, zeroed)
    layer.text = LayerText(layer, name, imp)
    layer.text.zeroed = zeroed
    tol = layer.tolerance(x0[0], Suspect(CORRECT))
    flag = sig.flag or flag_by_effect(layer, x0, first, sig.switches, tol)
    run = LayerRun(layer, rep, module, masks, flag)
    run.facts |= {"x": x0, "first": first, "tol": tol}
    return run


def flag_by_effect(
    layer: Layer, x: Array, first: Array, switches: list[str], tol: float
) -> str | None:
    """A switch (a parameter defaulting to False) that asks for the causal mask under a name of
    its own, found by its effect (hides_the_future)."""

    def answer_with(name: str) -> Array | None:
        layer.flag = name
        try:
            return layer(x)
        except CallFailed:
            return None
        finally:
            layer.flag = None

    return switch_by_effect(switches, answer_with, first, tol)


def _say_how_called(layer: Layer, rep: Report, turned: bool, zeroed: list[str]) -> None:
    """The input's shape, the projections read, and how the layer was made ready."""
    proj = layer.proj
    rep.backend = f"torch {layer.dtype_name} x of shape {LAYOUT_TEXT[proj.layout][3]}"
    rep.notes.append(f"projections `{proj.names}`: {heads_text(proj)}")
    if turned:
        rep.notes.append(
            f"takes x as (batch, n, C) and turns it for `{proj.holder}`, which wants (n, batch, C)"
        )
    rep.notes += _how_it_scores(proj) + _how_it_rotates(layer, zeroed)


def heads_text(proj: Projections) -> str:
    """`4 heads of size 8, sharing 2 k, v heads, C = 32`, and where the reference comes from."""
    grouped = f", sharing {proj.kv_heads} k, v heads" if 0 < proj.kv_heads < proj.heads else ""
    return (
        f"{proj.heads} head{'s' if proj.heads > 1 else ''} of size {proj.head_size}{grouped}, "
        f"C = {proj.width}; the reference uses the layer's own weights"
    )


def same_output(run: LayerRun) -> None:
    """Calls on the same x agree (questions.CALLS of them, the first call counting); the rest
    needs it (`steady`)."""
    layer, rep, first, x = run.layer, run.rep, run.facts["first"], run.facts["x"]
    n0, s0 = SIZES[0]
    moved = repeats(lambda: layer(x), first)
    run.facts["steady"] = not moved > run.facts["tol"]
    if not run.facts["steady"]:
        rep.check("same output for the same input", "fail", "two calls on the same x differ")
        rep.titled("random-output", "", layer.text.random(n0, s0))
        return
    rep.check("same output for the same input", "pass")


def intent(run: LayerRun) -> None:
    """Whether the layer is meant to hide the future (`causal`), and whether it does (`leak`)."""
    layer, rep, x0, tol = run.layer, run.rep, run.facts["x"], run.facts["tol"]
    reason = causal_intent(run.module)
    leak = future_leak(layer, x0, run.facts["first"], tol)
    causal = reason is not None or leak is None
    if reason is not None:
        rep.notes.append(f"checked as causal: {reason}")
        # a layer may leave its mask to the model around it (Hugging Face's eager attention)
        layer.mask = mask_that_hides_the_future(layer, run.masks, x0, tol) if leak else None
        if layer.mask is not None:
            leak = None
            rep.notes.append(
                f"the causal mask goes in through `{layer.mask.param}` ({layer.mask.said}, "
                f"{layer.mask.shape}): without it the layer sees the future"
            )
    else:
        rep.notes.append(unmasked_note(causal, run.flag))
    masked_off = run.flag is None and not causal and bool(run.masks)
    run.facts |= {
        "causal": causal,
        "leak": leak,
        "flag off": run.flag is not None and not causal,
        "mask off": masked_off,  # a mask argument left empty: mask_on hands it a causal one
    }


WHOLE = "every position sees the whole sequence"  # said before any window is looked for


def unmasked_note(causal: bool, flag: str | None) -> str:
    if causal:
        return "masks the future by itself (no flag, no triangular buffer): causal"
    if flag is None:
        return f"{WHOLE}: checked without a mask"
    return f"{WHOLE} with `{flag}` off: checked without a mask, and with `{flag}=True` as causal"


def wiring(run: LayerRun) -> None:
    """How the weights are wired (a fused map's order, a norm, a residual), read once."""
    layer, rep, causal = run.layer, run.rep, run.facts["causal"]
    want, x, out = Suspect(CAUSAL if causal else CORRECT), run.facts["x"][0], run.facts["first"][0]
    layer.proj = proj = read_wiring(layer, want, x, out)
    # neither right nor a known bug over the whole sequence: perhaps over local windows
    if not any(agrees(layer, x, out, s) for s in [want, *candidates(causal, proj)]):
        _local(layer, rep, want, run.facts["tol"])
        layer.proj = proj = read_wiring(layer, want, x, out)
    if proj.norm is not None:
        kind = "RMSNorm" if proj.norm.rms else "LayerNorm"
        kind = f"GroupNorm, {proj.norm.groups} groups" if proj.norm.groups else kind
        where = "x + attention goes" if proj.post_norm else "x goes"
        when = "after the residual" if proj.post_norm else "before the projections"
        rep.notes.append(f"{where} through `{proj.norm.name}` ({kind}) {when}")
    if proj.wiring:
        rep.notes.append(
            f"{proj.wiring}: right for weights trained this way, wrong for a checkpoint "
            "trained the usual way"
        )
    if proj.residual:
        rep.notes.append("the layer adds x to its output (a residual): checked as x + attention")
    if proj.relu:
        rep.notes.append("the layer's output is never negative: checked as ReLU(attention)")
    if proj.q_residual:
        rep.notes.append("each head adds its q to its output (Q + A V): checked so")
    if proj.out_residual:
        rep.notes.append("the map out is a feed-forward step, O + ReLU(W O + b): checked so")


def reference(run: LayerRun) -> None:
    """The output against the layer's own weights computed as attention (`right`)."""
    causal = run.facts["causal"]
    run.facts["label"] = label = "causal" if causal else "no mask"
    run.facts["right"] = judge(run.layer, run.rep, causal, run.facts["leak"], label)


def _local(layer: Layer, rep: Report, want: Suspect, tol: float) -> None:
    """The local windows the layer keeps to, probed one position of x at a time; the last
    block filled with x = 0 when the shortest x, cut short by the blocks, says so."""
    try:
        window = local_window(layer, layer.x(*max(SIZES)), tol)
        x = layer.x(*min(SIZES))[0]
        out = layer(x[None])[0]
    except CallFailed:
        return
    if window is not None:
        ways = [replace(window, padded=p) for p in (False, True)]
        right = (w for w in ways if agrees(layer, x, out, want, replace(layer.proj, window=w)))
        layer.proj = replace(layer.proj, window=(window := next(right, window)))
        # the whole sequence, but for the window: the later positions within it
        rep.notes = [
            n.replace(WHOLE, "no position is hidden from an earlier one") for n in rep.notes
        ]
        rep.notes.append(f"{window.said} (found by probing)")


def _how_it_scores(proj: Projections) -> list[str]:
    """Notes on how the layer forms its scores, as read from it or its run."""
    said: list[str] = []
    if proj.cap:
        said.append(
            f"the scores are soft-capped as {proj.cap:g} tanh(s / {proj.cap:g}) "
            f"(`{proj.capped_by}`): so is the reference"
        )
    if proj.scale:
        how = "the scale the caller passed" if proj.scale_passed else "the scale it was built with"
        how += "" if proj.scale_passed else ", read from the run"
        said.append(
            f"the scores are scaled by {proj.scale:.4g} (`{proj.scaled_by}`), not "
            f"1/sqrt({proj.head_size}): {how}; so is the reference"
        )
    if proj.axis == "queries":
        said.append(
            "the softmax normalises each key's column of q k^T, over the queries (its dim "
            "read from the run), where each query's row over the keys is meant"
        )
    if proj.cosine:
        temps = ", ".join(f"{t:.4g}" for t in proj.cosine)
        said.append(
            f"scaled cosine attention: the scores are t cos(q, k), t = {temps} per head, read "
            "from the run; so is the reference"
        )
    return said


def _how_it_rotates(layer: Layer, zeroed: list[str]) -> list[str]:
    """Notes on the rotation handed in, or made by the layer and held at angle 0."""
    said: list[str] = []
    if layer.rotary is not None:
        said.append(
            f"rotary embeddings go in through {layer.rotary.params}: handed in at angle 0 "
            f"({layer.rotary.said}), so the layer is checked as attention without positions "
            "(the rotation itself is the model's, not checked)"
        )
    if layer.companions:
        given = ", ".join(c.said for c in layer.companions)
        said.append(f"its other required arguments are given as it runs with them: {given}")
    if ON_EACH_CALL in zeroed:
        said.append(
            "the layer rotates q and k with angles it works out on each call: its cos and sin"
            " are answered as at angle 0 (1 and 0) while it runs, so it is checked as attention"
            " without positions"
        )
        return said
    biases = [n for n in zeroed if held_at(n) in named("relative bias")]
    angles = [n for n in zeroed if n not in biases]
    if angles:
        said.append(
            f"the layer rotates q and k itself: its angles ({', '.join(f'`{n}`' for n in angles)})"
            " are held at angle 0 for the check, so it is checked as attention without positions"
            " (they are put back after)"
        )
    if biases:
        said.append(
            f"the layer adds a learned bias by relative position to its scores: "
            f"{', '.join(f'`{n}`' for n in biases)} held at 0 for the check (put back after)"
        )
    return said


def _required(params: dict[str, bool], masks: list[str], given: dict[str, Any]) -> dict[str, Any]:
    """What a layer cannot be called without and the caller has not given (`params`: whether
    each is required): a mask argument with no default (Mistral's `attention_mask`) as None,
    no mask, until one is found to be what makes the layer causal; the start position as 0."""
    needed = {n for n, required in params.items() if required} - set(given)
    return {n: None for n in masks if n in needed} | {n: 0 for n in named("start") if n in needed}


def _lengths_taken(layer: Layer, rep: Report) -> tuple[tuple[int, int], ...]:
    """SIZES' lengths the layer takes besides the first: a layer holding a mask or positions
    of one length (CLIP's text attention with its causal mask for 77 tokens) takes only it."""
    taken = [SIZES[0]]
    for n, seed in SIZES[1:]:
        try:
            layer(layer.x(n, seed))
            taken.append((n, seed))
        except CallFailed:
            continue
    if len(taken) == 1:
        rep.notes.append(f"it takes only n = {SIZES[0][0]} of the lengths tried: checked on that")
    return tuple(taken)


def _first_call(layer: Layer, x: Array, rotaries: list[Rotary], open_: list[str]) -> Array:
    """The layer's output for x, with the first of the rotations it may take that it accepts
    (kept for every later call), or alone when it takes none; the required arguments `open_`
    that are not the rotation's handed their positions or its bound (companions.py), in the
    first form it runs with. Only a rotation's companions: an argument of a layer without one
    (packed documents' ids) may be anything, and made-up positions would be a false alarm."""
    for rotary in rotaries:
        rest = [p for p in open_ if p not in (rotary.param, rotary.sine)]
        for companions in ways_to_give(rest):
            layer.rotary, layer.companions = rotary, companions
            try:
                out = layer(x)
                if not rotary.by_shape or not np.allclose(out, _scaled_by(layer, rotary, x)):
                    return out
            except CallFailed:
                pass
    layer.rotary, layer.companions = None, ()
    return layer(x)


def _scaled_by(layer: Layer, rotary: Rotary, x: Array) -> Array:
    """The output with an argument found by shape handed cos 2 and sin 0: a rotation scales q
    and k by 2 and moves the output; an argument the layer ignores moves nothing."""
    layer.rotary = replace(rotary, gain=2.0)
    try:
        return layer(x)
    finally:
        layer.rotary = rotary


def _turns_x(layer: Layer, x: Array) -> bool:
    """Whether a wrapper around a module that wants x as (n, batch, C) takes (batch, n, C)
    itself and turns it. Fed its module's layout, such a wrapper reads each position as a
    sequence of its own, and no position reaches another; fed (batch, n, C), they meet.
    Attention of any kind, right or buggy, lets some position see the first or the last."""

    def mixes() -> bool:
        try:
            alone = layer(x)
            for j in (0, x.shape[1] - 1):
                moved = x.copy()
                moved[:, j] += 1.0
                others = np.arange(x.shape[1]) != j
                if not np.allclose(alone[:, others], layer(moved)[:, others], equal_nan=True):
                    return True
        except CallFailed:
            pass
        return False

    if mixes():
        return False
    layer.proj = replace(layer.proj, time_first=False)
    try:
        return mixes()
    finally:
        layer.proj = replace(layer.proj, time_first=True)


def flag_on(run: LayerRun) -> None:
    """A layer seeing the whole sequence with its causal flag off must, with the flag set,
    hide the future and be causal attention."""
    layer, rep, flag, tol = run.layer, run.rep, run.flag, run.facts["tol"]
    assert flag is not None
    layer.flag = flag
    n, seed = SIZES[0]
    x = layer.x(n, seed)
    try:
        on = layer(x)
    except CallFailed as exc:  # nn.MultiheadAttention's is_causal is a hint that needs a mask
        rep.check(f"causal mask via `{flag}`", "skip", f"`{flag}=True` alone: {exc}")
        layer.flag = None
        return
    if float(np.max(np.abs(on - run.facts["first"]))) <= tol:
        rep.check(f"causal mask via `{flag}`", "fail", f"`{flag}=True` changes nothing")
        rep.titled(
            "causal-flag-ignored",
            f": `{flag}=True` gives the output of `{flag}=False`",
            layer.text.leak(n, seed, 0),
        )
    else:
        judge(layer, rep, True, future_leak(layer, x, on, tol), f"causal via `{flag}`")
    layer.flag = None


def mask_on(run: LayerRun) -> None:
    """A layer seeing the whole sequence with its mask argument left empty (gpt-fast's `mask`,
    a decoder's `attn_mask`) must, handed a causal mask in a form it takes, be causal
    attention: the mask applied as the model around it would apply it, not only absent."""
    layer, rep, x, tol = run.layer, run.rep, run.facts["x"], run.facts["tol"]
    # a form that hides the future; else one the layer applies as a mask bug that leaks by
    # the normalisation does (after the softmax, or scores times 0): the triangle bugs are
    # left out, a mask of another meaning (a key mask) can fall into one by broadcasting
    leaky = ("causal-mask-after-softmax", "causal-mask-multiplied")
    bugs = [Suspect(v) for v in causal_bugs(CORRECT) if v.id in leaky]
    # a form that is the causal attention first: a 0/1 mask read as additive hides the future
    # too (Perceiver IO's `(1 - mask) * min` makes every kept score the lowest value)
    hiding = mask_that(
        layer, run.masks, x, lambda out: agrees(layer, x[0], out[0], Suspect(CAUSAL))
    ) or mask_that_hides_the_future(layer, run.masks, x, tol)
    found = hiding or mask_that(
        layer, run.masks, x, lambda out: any(agrees(layer, x[0], out[0], b) for b in bugs)
    )
    if found is None:
        said = ", ".join(f"`{m}`" for m in run.masks)
        rep.notes.append(f"no causal mask handed to {said} hides the future: not checked as causal")
        return
    rep.notes.append(f"a causal mask handed to `{found.param}` ({found.said}) is checked")
    # a form found hiding the future has no leak to look for again
    leak = None if hiding else future_leak(layer, x, layer(x), tol)
    judge(layer, rep, True, leak, f"causal via `{found.param}`")
    layer.mask = None


def batched(run: LayerRun) -> None:
    """Each sequence of a batch comes out as it does alone."""
    layer, rep, tol = run.layer, run.rep, run.facts["tol"]
    n, seed = SIZES[0]
    name = f"batch of {BATCH}: each sequence on its own"
    xs = layer.x(n, seed, BATCH)
    try:
        together = layer(xs)
    except CallFailed as exc:
        rep.check(name, "warn", str(exc))
        rep.titled("batched-input-unsupported", f": {exc}", layer.text.batch(n, seed))
        return
    for b in range(BATCH):
        if float(np.max(np.abs(layer(xs[b : b + 1])[0] - together[b]))) > tol:
            rep.check(name, "fail", f"sequence {b} differs from the same x alone")
            rep.titled(
                "wrong-output",
                f": in a batch of {BATCH} the sequences are mixed",
                layer.text.batch(n, seed),
            )
            return
    rep.check(name, "pass")
