"""Probing an attention layer that holds its own projections, called as layer(x) on hidden
states x of shape (batch, n, C): nanoGPT's CausalSelfAttention and Head, timm's Attention,
Hugging Face's GPT2Attention, vit-pytorch's and Whisper's attention.

The reference is the layer's own weights (projections.py), head by head, so the known-bug
variants of the kernel check name what a layer gets wrong too. Whether the layer may see the
future is read from the layer itself (a class named causal, a triangular mask buffer,
`is_causal`), and then checked by changing only the later positions of x.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from .facts import Facts
from .findings import NONCAUSAL_BUGS, causal_bugs
from .frameworks import CallFailed, precision
from .kernel import Target
from .names import named
from .projections import Projections, Suspect, as_float64, causal_intent
from .questions import future_moved, repeat_moved, switch_by_effect
from .reference import (
    ATOL,
    CAUSAL,
    CORRECT,
    Variant,
    allowed,
    local_window,
    masked,
)
from .report import Report
from .rotary import AT_ZERO, AT_ZERO_TEXT, ON_EACH_CALL, Rotary, defined, held_at, rotations
from .runner import Runner, TargetError

Array = np.ndarray
Leak = tuple[int, int]  # (row, i): output `row` <= i moved when only x after i changed

SIZES = ((8, 0), (5, 1), (16, 2))  # (n, seed) of the inputs x compared with the reference
# which part of a fused map is which: as published code splits it, q, k, v first
ORDERS = ("qkv", "kqv", "qvk", "kvq", "vqk", "vkq")
BATCH = 2


# How a causal mask may go into a layer's mask argument, as a (1, 1, n, n) or (n, n) tensor:
# added to the scores (0 or the dtype's lowest value, as Hugging Face's models hand it to
# eager attention), or boolean, True = may attend (F.scaled_dot_product_attention) or
# True = hidden (nn.MultiheadAttention).
MASK_FORMS = ("additive", "keep", "block")
# the usual cause of a wrong triangle around nn.MultiheadAttention
MHA_MASK = (
    "nn.MultiheadAttention reads a boolean attn_mask as True = may NOT attend, the opposite of "
    "F.scaled_dot_product_attention: pass `~tril` (or `torch.triu(ones, 1).bool()`)"
)


@dataclass(frozen=True)
class CausalMask:
    """The causal mask handed to the layer's mask argument `param`, in `form`."""

    param: str
    form: str
    square: bool = False  # (n, n), as nn.MultiheadAttention takes it, not (1, 1, n, n)

    @property
    def shape(self) -> str:
        return "(n, n)" if self.square else "(1, 1, n, n)"

    def make(self, n: int, dtype: Any) -> Any:
        """The mask for n positions: the reproductions' `causal(n)`, run."""
        return defined(self.text(str(dtype)), "causal")(n)

    def text(self, dtype: str) -> list[str]:
        """The reproductions' `causal(n)`, making the same mask."""
        keep = "torch.ones(n, n, dtype=torch.bool).tril()" + ("" if self.square else "[None, None]")
        made = {
            "additive": f"torch.zeros(keep.shape, dtype={dtype}).masked_fill(~keep, "
            f"torch.finfo({dtype}).min)",
            "keep": "keep",
            "block": "~keep",
        }[self.form]
        return [
            f"def causal(n):  # the causal mask as `{self.param}` takes it: {self.said}",
            f"    keep = {keep}",
            f"    return {made}",
            "",
        ]

    @property
    def said(self) -> str:
        return {
            "additive": "added to the scores, 0 or the lowest value",
            "keep": "boolean, True = may attend",
            "block": "boolean, True = hidden",
        }[self.form]


class Layer:
    """A target called as layer(x), x a torch tensor (batch, n, C) in the layer's dtype, with
    a causal mask in its mask argument once one is found to be what makes it causal."""

    def __init__(self, runner: Runner, proj: Projections, dtype: Any) -> None:
        self.runner, self.proj, self.dtype = runner, proj, dtype
        self.lp = precision(str(dtype))
        self.mask: CausalMask | None = None
        self.flag: str | None = None  # a causal flag passed as True
        self.rotary: Rotary | None = None  # the rotation the model would hand in, at angle 0
        self.args: dict[str, Any] = {}  # the caller's own, for every call
        # the (n, seed) it is compared on: those of SIZES whose length it takes
        self.sizes: tuple[tuple[int, int], ...] = SIZES
        self.text: _Text  # the reproductions, once the layer is called

    @property
    def dtype_name(self) -> str:
        """`float16`, for the report: the dtype without torch's prefix."""
        return str(self.dtype).removeprefix("torch.")

    def x(self, n: int, seed: int, batch: int = 1) -> Array:
        """The input the reproductions make with torch.randn and this seed, as float64."""
        import torch  # pyright: ignore[reportMissingImports]

        g = torch.Generator().manual_seed(seed)
        return as_float64(torch.randn(batch, n, self.proj.width, generator=g, dtype=self.dtype))

    kind = "layer"

    @property
    def reference(self) -> Projections:
        """The layer's own weights, which the output is computed from in float64."""
        return self.proj

    def source(self) -> list[str]:
        """The reproductions' first lines: the import, the mask it takes, and y(x)."""
        return self.text._head()

    def call(self, x: Array) -> Array:
        return self(x)

    def __call__(self, x: Array) -> Array:
        """The output for x (batch, n, C) as float64 (batch, n, C_out), or CallFailed."""
        proj = self.proj
        given, extra = self.inputs(x, self.dtype)
        out = np.asarray(self.runner(*given, **extra))
        out = out[:, :, 0] if proj.image and out.ndim == 4 else out
        out = out[:, :, 0].swapaxes(1, 2) if proj.channels_first and out.ndim == 4 else out
        if out.ndim == 2 and x.shape[0] == 1:
            out = out[:, None] if proj.time_first else out[None]
        out = out.swapaxes(0, 1) if proj.time_first and out.ndim == 3 else out
        if out.ndim != 3 or out.shape[:2] != x.shape[:2]:
            raise CallFailed(f"returned shape {out.shape} for x of shape {x.shape}")
        return out

    def inputs(self, x: Array, dtype: Any) -> tuple[list[Any], dict[str, Any]]:
        """The arguments of a call on x (batch, n, C) as torch tensors of `dtype`: x in the
        layer's layout, as often as it takes it, and its mask, flag and rotation."""
        import torch  # pyright: ignore[reportMissingImports]

        proj, n = self.proj, x.shape[1]
        given = torch.tensor(x, dtype=dtype)
        given = given.transpose(0, 1) if proj.time_first else given
        given = given[:, :, None] if proj.image else given
        # contiguous: torch 2.13's backward through a 1 x 1 convolution and a GroupNorm of
        # a (batch, C, 1, n) view with strides (n C, 1, n C, C) ends the process (SIGSEGV)
        given = given.transpose(1, 2)[:, :, None].contiguous() if proj.channels_first else given
        extra = {self.mask.param: self.mask.make(n, dtype)} if self.mask else {}
        extra |= {self.flag: True} if self.flag else {}
        extra |= self.rotary.args(n, dtype) if self.rotary else {}
        if proj.keywords:  # forward(*, query, key, value): labml.ai's
            return [], {**dict.fromkeys(proj.keywords, given), **self.args, **extra}
        return [given] * proj.inputs, {**self.args, **extra}

    def tolerance(self, x: Array, suspect: Suspect, proj: Projections | None = None) -> float:
        ref = suspect.run(proj or self.proj, x)
        low = suspect.run(proj or self.proj, x, self.lp.dtype)
        return ATOL if ref is None or low is None else allowed(ref, low, self.lp)


@dataclass
class LayerRun:
    """One check of a layer: what its rules share (rules.State)."""

    layer: Layer
    rep: Report
    module: Any  # None for a JAX layer
    masks: list[str]  # its mask arguments, which may carry its causal mask
    flag: str | None  # its causal flag (timm's `is_causal`), checked on as well as off
    facts: Facts = field(default_factory=Facts)

    @property
    def subject(self) -> Layer:
        return self.layer


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
        first = _first_call(layer, x0, rotations(sig.params, args, proj.head_size))
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
    layer.text = _Text(layer, name, imp)
    layer.text.zeroed = zeroed
    tol = layer.tolerance(x0[0], Suspect(CORRECT))
    flag = sig.flag or _flag_by_effect(layer, x0, first, sig.switches, tol)
    run = LayerRun(layer, rep, module, masks, flag)
    run.facts |= {"x": x0, "first": first, "tol": tol}
    return run


def _flag_by_effect(
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
    """Two calls on the same x agree; the rest needs it (`steady`)."""
    layer, rep, first = run.layer, run.rep, run.facts["first"]
    n0, s0 = SIZES[0]
    moved = repeat_moved(first, [layer(run.facts["x"])])
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
    leak = _future_leak(layer, x0, run.facts["first"], tol)
    causal = reason is not None or leak is None
    if reason is not None:
        rep.notes.append(f"checked as causal: {reason}")
        # a layer may leave its mask to the model around it (Hugging Face's eager attention)
        layer.mask = _mask_that_hides_the_future(layer, run.masks, x0, tol) if leak else None
        if layer.mask is not None:
            leak = None
            rep.notes.append(
                f"the causal mask goes in through `{layer.mask.param}` ({layer.mask.said}, "
                f"{layer.mask.shape}): without it the layer sees the future"
            )
    else:
        rep.notes.append(_unmasked_note(causal, run.flag))
    masked_off = run.flag is None and not causal and bool(run.masks)
    run.facts |= {
        "causal": causal,
        "leak": leak,
        "flag off": run.flag is not None and not causal,
        "mask off": masked_off,  # a mask argument left empty: mask_on hands it a causal one
    }


WHOLE = "every position sees the whole sequence"  # said before any window is looked for


def _unmasked_note(causal: bool, flag: str | None) -> str:
    if causal:
        return "masks the future by itself (no flag, no triangular buffer): causal"
    if flag is None:
        return f"{WHOLE}: checked without a mask"
    return f"{WHOLE} with `{flag}` off: checked without a mask, and with `{flag}=True` as causal"


def wiring(run: LayerRun) -> None:
    """How the weights are wired (a fused map's order, a norm, a residual), read once."""
    layer, rep, causal = run.layer, run.rep, run.facts["causal"]
    want, x, out = Suspect(CAUSAL if causal else CORRECT), run.facts["x"][0], run.facts["first"][0]
    layer.proj = proj = _wiring(layer, want, x, out)
    # neither right nor a known bug over the whole sequence: perhaps over local windows
    if not any(_agrees(layer, x, out, s) for s in [want, *_candidates(causal, proj)]):
        _local(layer, rep, want, run.facts["tol"])
        layer.proj = proj = _wiring(layer, want, x, out)
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


def reference(run: LayerRun) -> None:
    """The output against the layer's own weights computed as attention (`right`)."""
    causal = run.facts["causal"]
    run.facts["label"] = label = "causal" if causal else "no mask"
    run.facts["right"] = _judge(run.layer, run.rep, causal, run.facts["leak"], label)


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
        right = (w for w in ways if _agrees(layer, x, out, want, replace(layer.proj, window=w)))
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
        said.append(
            f"the scores are scaled by {proj.scale:.4g} (`{proj.scaled_by}`), not "
            f"1/sqrt({proj.head_size}): the scale the layer was built with, read from the run; "
            "so is the reference"
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


def _first_call(layer: Layer, x: Array, rotaries: list[Rotary]) -> Array:
    """The layer's output for x, with the first of the rotations it may take that it accepts
    (kept for every later call), or alone when it takes none."""
    for rotary in rotaries:
        layer.rotary = rotary
        try:
            return layer(x)
        except CallFailed:
            layer.rotary = None
    return layer(x)


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
        _judge(layer, rep, True, _future_leak(layer, x, on, tol), f"causal via `{flag}`")
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
    hiding = _mask_that_hides_the_future(layer, run.masks, x, tol)
    found = hiding or _mask_that(
        layer, run.masks, x, lambda out: any(_agrees(layer, x[0], out[0], b) for b in bugs)
    )
    if found is None:
        said = ", ".join(f"`{m}`" for m in run.masks)
        rep.notes.append(f"no causal mask handed to {said} hides the future: not checked as causal")
        return
    rep.notes.append(f"a causal mask handed to `{found.param}` ({found.said}) is checked")
    # a form found hiding the future has no leak to look for again
    leak = None if hiding else _future_leak(layer, x, layer(x), tol)
    _judge(layer, rep, True, leak, f"causal via `{found.param}`")
    layer.mask = None


def _judge(layer: Layer, rep: Report, causal: bool, leak: Leak | None, label: str) -> bool:
    """Compare with the reference; name the bug when it does not match; then, for a causal
    layer, whether the future reaches the past. Whether the layer was right throughout."""
    proj = layer.proj
    want = Suspect(CAUSAL if causal else CORRECT)
    check_name = f"matches float64 reference attention layer ({label})"
    results = [(x, layer(x)) for x in (layer.x(n, s) for n, s in layer.sizes)]
    sizes = ", ".join(f"n = {n}" for n, _ in layer.sizes)
    named = False  # a known bug, or an unexplained output, already reported
    right = all(_agrees(layer, x[0], out[0], want) for x, out in results)
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
            for v in _candidates(causal, proj)
            if all(_agrees(layer, x[0], out[0], v) for x, out in results)
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


def _wiring(layer: Layer, want: Suspect, x: Array, out: Array) -> Projections:
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
    right = next((w for w in ways if _agrees(layer, x, out, want, w)), None)
    if right is not None:
        return right
    plain = [replace(proj, norm=n, residual=r, post_norm=a) for n, r, a in wires]
    return min(plain, key=lambda w: _error(w, want, x, out))


def _readings(proj: Projections) -> list[Projections]:
    """Every way to read a fused map's columns (the parts in any order, per head or side by
    side), and, with grouped-query heads, which q heads share a k, v head."""
    reads = [(o, h) for h in (False, True) for o in ORDERS] if proj.fused is not None else []
    wired = [proj.rewired(order, per_head) for order, per_head in reads] or [proj]
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


def _agrees(
    layer: Layer, x: Array, out: Array, suspect: Suspect, proj: Projections | None = None
) -> bool:
    """Whether `out` is the layer's output (`proj`, by default as read) computed as
    `suspect`, within the layer's precision."""
    proj = proj or layer.proj
    return _error(proj, suspect, x, out) <= layer.tolerance(x, suspect, proj)


def _candidates(causal: bool, proj: Projections) -> list[Suspect]:
    """The known bugs, under the mask the layer is meant to have; and two that only a layer
    can have: scaled by the model width C instead of the head size (nanoGPT's lecture Head,
    `C**-0.5`), and heads split across positions."""
    by_width = Variant(
        "scale-wrong",
        f"scores scaled by C**-0.5 = {proj.width}**-0.5, the model width, not the head size",
        scores="alpha",
        p=proj.width**-0.5,
    )
    # first: where C is the square of the head size, C**-0.5 is also 1 / d, and the width is
    # the likelier reading in a layer
    plain = [by_width, *NONCAUSAL_BUGS] if proj.width != proj.head_size else [*NONCAUSAL_BUGS]
    base = CAUSAL if causal else CORRECT
    # split across positions, joined across them, or both (FuxiCTR's view(B * heads, -1, d))
    ways = ((True, False), (False, True), (True, True))
    cut = [Suspect(base, c, m) for c, m in ways] if proj.heads > 1 else []
    if not causal:
        return [*(Suspect(v) for v in plain), *cut]
    return [*(Suspect(masked(v)) for v in plain), *(Suspect(v) for v in causal_bugs(CORRECT)), *cut]


def _mask_that_hides_the_future(
    layer: Layer, masks: list[str], x: Array, tol: float
) -> CausalMask | None:
    """The first mask argument and form under which the layer no longer sees the future."""
    return _mask_that(layer, masks, x, lambda out: _future_leak(layer, x, out, tol) is None)


def _mask_that(
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


def _future_leak(layer: Layer, x: Array, out: Array, tol: float) -> Leak | None:
    """(row, i): the first output row at or before i that moves when only x after i changes."""
    n = x.shape[1]
    rng = np.random.default_rng(7)
    for i in range(n - 1):
        changed = x.copy()
        changed[:, i + 1 :] = rng.standard_normal(changed[:, i + 1 :].shape)
        moved = future_moved(out, layer(changed), i)
        if moved.max() > tol:
            return int(np.argmax(moved > tol)), i
    return None


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


# by Projections.layout, how a reproduction hands x (batch, n, C) to the layer, turns its
# output back and says so, and the shape the report says x goes in as
LAYOUT_TEXT = {
    "": ("x", "", "", "(batch, n, C)"),
    "time_first": (
        "x.transpose(0, 1)",
        ".transpose(0, 1)",
        "x as (n, batch, C), ",
        "(n, batch, C)",
    ),
    "image": (
        "x[:, :, None]",
        "[:, :, 0]",
        "x as an n x 1 image, ",
        "(batch, n, 1, C), an n x 1 image",
    ),
    # the sequence along the width, as Apple's ANE layers take it; a U-Net's, which flattens
    # H x W, takes it too, where (batch, C, n, 1) would read each position alone to the former
    "channels_first": (
        "x.transpose(1, 2)[:, :, None].contiguous()",
        "[:, :, 0].transpose(1, 2)",
        "x as a 1 x n image (batch, C, 1, n), ",
        "(batch, C, 1, n), a 1 x n image, channels first",
    ),
}


class _Text:
    """The reproductions: torch code a reader can paste next to the file."""

    # how they write the largest entry of |a|, a copy of x, and new values for a part of it
    largest = "({}).abs().max()"
    copy = "x.clone()"
    fresh = "torch.randn_like({})"
    zero = "  # should be 0"  # what a batch's reproduction says it should print

    def __init__(self, layer: Layer, name: str, imp: str) -> None:
        self.layer, self.name, self.imp = layer, name, imp
        self.zeroed: list[str] = []  # the angles of a rotation the layer makes itself

    @property
    def width(self) -> int:
        return self.layer.proj.width

    @property
    def dtype(self) -> str:
        return str(self.layer.dtype)

    def _x(self, n: int, seed: int, batch: int = 1, var: str = "x") -> str:
        return (
            f"{var} = torch.randn({batch}, {n}, {self.width}, "
            f"generator=torch.Generator().manual_seed({seed}), dtype={self.dtype})"
        )

    def _head(self) -> list[str]:
        layer, proj = self.layer, self.layer.proj
        mask = layer.mask.text(self.dtype) if layer.mask else []
        mask += layer.rotary.text(self.dtype) if layer.rotary else []
        x, back, said, _ = LAYOUT_TEXT[proj.layout]
        still, calls = self._at_zero(f"out = {self.name}({self.given(x)})")
        return [
            "import torch",
            self.imp,
            "",
            *still,
            *mask,
            f"def y(x):  # the output, {said}also when the layer returns a tuple",
            *calls,
            f"    return (out[0] if isinstance(out, tuple) else out){back}",
            "",
        ]

    def given(self, x: str) -> str:
        """The arguments of a call on `x`: x as often as the layer takes it, and the
        caller's arguments, the mask, the rotation and the flag it is checked with."""
        layer, proj = self.layer, self.layer.proj
        given = ", ".join([f"{k}={x}" for k in proj.keywords] or [x] * proj.inputs)
        # a required mask argument handed None is handed the causal mask instead, once found
        args = {k: v for k, v in layer.args.items() if not layer.mask or k != layer.mask.param}
        given += "".join(f", {k}={v!r}" for k, v in args.items())
        given += f", {layer.mask.param}=causal(x.shape[1])" if layer.mask else ""
        given += layer.rotary.given if layer.rotary else ""
        return given + (f", {layer.flag}=True" if layer.flag else "")

    def _at_zero(self, call: str) -> tuple[list[str], list[str]]:
        """The lines that hold the layer's own rotation at angle 0, as checked, and the call:
        its kept angles filled in place, or, for angles worked out on each call, the call run
        under AtZero (cos 1, sin 0)."""
        if ON_EACH_CALL in self.zeroed:
            return [*AT_ZERO_TEXT.splitlines(), ""], ["    with AtZero():", f"        {call}"]
        still = [f"    {self.name}.{n}.fill_({AT_ZERO[held_at(n) or '']})" for n in self.zeroed]
        if still:
            still = ["with torch.no_grad():  # angles, relative bias at 0, as checked", *still, ""]
        return still, [f"    {call}"]

    def random(self, n: int, seed: int) -> str:
        said = f"print({self.largest.format('y(x) - y(x)')})  # should be 0"
        return "\n".join([*self._head(), self._x(n, seed), said])

    def leak(self, n: int, seed: int, after: int) -> str:
        later, a = f"later[:, {after + 1}:]", after + 1
        lines = [*self._head(), self._x(n, seed), f"later = {self.copy}"]
        lines.append(f"{later} = {self.fresh.format(later)}")
        lines.append(
            f"print({self.largest.format(f'y(x)[:, :{a}] - y(later)[:, :{a}]')})"
            f"  # 0 if outputs 0..{after} ignore the future"
        )
        return "\n".join(lines)

    def batch(self, n: int, seed: int) -> str:
        each = self.largest.format("y(xs)[b] - y(xs[b:b+1])[0]")
        said = f"print(max({each} for b in range({BATCH})))" + self.zero
        return "\n".join([*self._head(), self._x(n, seed, BATCH, "xs"), said])

    def expected(self, x: Array, seed: int, proj: Projections, want: Suspect) -> str:
        """What the layer should print for its input x (n, C), made with `seed`: a middle
        row, which a causal mask and the scale both reach (the first row sees one key, the
        last sees all)."""
        n, row = x.shape[0], x.shape[0] // 2
        ref = want.run(proj, x)
        shown = ", ".join(f"{v:.4f}" for v in (ref[row, :4] if ref is not None else ()))
        lines = [*self._head(), self._x(n, seed), f"print(y(x)[0, {row}, :4])"]
        lines.append(f"# expected ({want.detail}, from the layer's own weights): [{shown}]")
        return "\n".join(lines)
