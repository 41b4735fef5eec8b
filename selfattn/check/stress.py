"""Checks beyond the reference: batched torch tensors, extreme inputs, one very long key."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from copy import copy
from dataclasses import dataclass

import numpy as np

from . import repro
from .context import Ctx
from .frameworks import LAYOUTS, CallFailed, to_layout
from .kernel import Kernel
from .questions import moved
from .reference import Variant, masked, softmax, tolerance

Array = np.ndarray


BATCH = (2, 3, 5, 4)  # (batch, heads, n, d)


def batched(ctx: Ctx) -> None:
    """Each (n, d) slice of a batched input must come out as it does alone, as the kernel does
    without a mask (`base`); a numpy kernel on (n, d) inputs is not written for batches.

    A kernel that raises on batched input was written for one sequence at a time: that is
    said as a warning. One that runs but mixes the slices is wrong.
    """
    kern, base = ctx.kern, ctx.facts["base"]
    if kern.backend.name == "numpy" and kern.layout == "nd":
        return
    batch = (*BATCH[:2], *kern.shapes[0]) if kern.shapes else BATCH  # a size it accepts
    shape = to_layout(np.empty(batch), kern.layout).shape
    name = f"batched {shape} tensors: each (n, d) slice on its own"
    q, k, v = np.random.default_rng(9).standard_normal((3, *batch))
    lines = [*kern.source(), *repro.random_inputs(kern, 9, *shape)]
    batch_kern = copy(kern)
    batch_kern.layout = "nd"  # the inputs are drawn in the kernel's layout above
    batch_kern.back = "[0]" if kern.pair else ""  # the output as it comes, if not in a pair
    said = _Batch(ctx, name, shape, batch[2], lines, batch_kern)
    for causal in kern.modes:
        want = masked(base) if causal else base
        try:
            out = kern.call(q, k, v, causal)
        except CallFailed as exc:
            said.unsupported(exc, causal)
            return
        for b in np.ndindex(*batch[:2]):
            alone = kern.answer(q[b], k[b], v[b], causal)
            if alone is None:
                continue
            diff = moved(out[b], alone)
            if diff > tolerance(q[b], k[b], v[b], kern.lp):
                said.mixed(b, diff, causal, _batch_axis(out, q, k, v, want))
                return
    ctx.rep.check(name, "pass")


@dataclass
class _Batch:
    """What the batched check reports: its check's name, the batch's shape and length, the
    reproduction's lines so far, and the kernel as called on the whole batch."""

    ctx: Ctx
    name: str
    shape: tuple[int, ...]
    n: int  # the sequence length, which the causal mask is made for
    lines: list[str]
    batch_kern: Kernel

    def unsupported(self, exc: Exception, causal: bool) -> None:
        kern, rep, lines = self.ctx.kern, self.ctx.rep, self.lines
        rep.check(self.name, "warn", str(exc))
        hint = " (`k.T` reverses every axis of a batched tensor)" if _shape_error(exc) else ""
        lines += repro.mask_lines(kern, self.n, causal)
        lines.append(f"out = {repro.call_text(self.batch_kern, causal)}")
        lines.append(f"# {exc}")
        rep.titled(
            "batched-input-unsupported",
            f": works on {LAYOUTS[kern.layout]} inputs, fails on {self.shape}{hint}: {exc}",
            "\n".join(lines),
        )

    def mixed(self, b: tuple[int, ...], diff: float, causal: bool, axis: int | None) -> None:
        kern, rep, lines, shape = self.ctx.kern, self.ctx.rep, self.lines, self.shape
        rep.check(self.name, "fail", f"slice {b} differs from the same input as (n, d)")
        lines += repro.mask_lines(kern, self.n, causal)
        at = _slice_text(kern.layout, b)
        one = [f"q{at}", f"k{at}", f"v{at}"]
        lines.append(f"a = {repro.call_text(self.batch_kern, causal)}{at}")
        lines.append(f"b = {repro.call_text(kern, causal, one[0], one[1], one[2])}")
        lines.append(
            f"print(abs(a - b).max())  # one slice, batched or alone: should be 0; got {diff:.3g}"
        )
        if axis is not None:
            msg = f"on {shape} tensors softmax runs over dim {axis}, not the keys"
            rep.titled("softmax-wrong-axis", f": {msg}", "\n".join(lines))
        else:
            msg = f"on {shape} tensors the (n, d) slices are mixed"
            rep.titled("wrong-output", f": {msg}", "\n".join(lines))


def _shape_error(exc: Exception) -> bool:
    return any(w in str(exc).lower() for w in ("size", "shape", "dimension"))


def _slice_text(layout: str, b: tuple[int, ...]) -> str:
    """Indexing that picks slice b = (batch, head) out of a batched input in `layout`."""
    if layout == "bnd":
        return f"[{b[0] * BATCH[1] + b[1]}]"
    if layout == "bnhd":
        return f"[{b[0]}, :, {b[1]}]"
    return f"[{b[0]}, {b[1]}]"


def _batch_axis(out: Array, q: Array, k: Array, v: Array, want: Variant) -> int | None:
    """Which axis a batched softmax ran over, if out matches one of dims 0 or 1."""
    s = q @ k.swapaxes(-1, -2) / np.sqrt(q.shape[-1])
    if want.keep is not None:
        s = np.where(np.tril(np.ones(s.shape[-2:], dtype=bool)), s, -np.inf)
    for axis in (0, 1, 2):
        ref = softmax(s, axis) @ v
        if np.allclose(out, ref, rtol=1e-4, atol=1e-6):
            return axis
    return None


# -- extreme inputs and long keys ------------------------------------------------------------

Maker = Callable[[int, int], tuple[Array, Array, Array]]


def _big(n: int, d: int) -> tuple[Array, Array, Array]:
    rng = np.random.default_rng([n, d, 40])
    q, k = np.round(40 * rng.standard_normal((2, n, d)))
    return q, k, rng.integers(-2, 3, (n, d)).astype(float)


def _negative(n: int, d: int) -> tuple[Array, Array, Array]:
    rng = np.random.default_rng([n, d, 41])
    base = np.round(40 + 4 * rng.random(d))
    k = base + rng.integers(-1, 2, (n, d))
    return -k[::-1].copy(), k, rng.integers(-2, 3, (n, d)).astype(float)


def _zeros(n: int, d: int) -> tuple[Array, Array, Array]:
    v = np.random.default_rng([n, d, 42]).integers(-2, 3, (n, d)).astype(float)
    return np.zeros((n, d)), np.zeros((n, d)), v


def _single(n: int, d: int) -> tuple[Array, Array, Array]:
    return _big(1, d)[0] / 40, _big(1, d)[1] / 40, np.ones((1, d))


EXTREMES: tuple[tuple[str, Maker], ...] = (
    ("entries of size 40 (scores in the thousands)", _big),
    ("every score very negative", _negative),
    ("all-zero queries and keys", _zeros),
    ("a single token (n = 1)", _single),
)


EXTREMES_CHECK = "finite on extreme inputs (huge or all-negative scores, zeros, n = 1)"


def extremes(ctx: Ctx) -> None:
    """Finite output on extreme but valid inputs, with and without the mask."""
    kern, rep, plain, name = ctx.kern, ctx.rep, ctx.facts["plain"], EXTREMES_CHECK
    modes = [False] if kern.mask_kind == "ignored" else kern.modes
    # Shapes the kernel already failed on were reported above: test extremes on the others.
    worked = [p.shape for p, o in zip(ctx.probes, plain, strict=True) if not isinstance(o, str)]
    shapes = [s for s in ((7, 5), (16, 8)) if s in worked] or worked[:1]
    broken = len(worked) < len(ctx.probes)
    for label, make in EXTREMES:
        if kern.shapes and make is _single:
            continue  # a kernel that takes only some lengths was not written for one token
        for causal, (n, d) in itertools.product(modes, shapes):
            if _extreme(ctx, label, make, make(n, d), causal, broken):
                return
    rep.check(name, "pass", f"n x d = {', '.join(f'{n}x{d}' for n, d in shapes)}")


def _extreme(
    ctx: Ctx,
    label: str,
    make: Maker,
    qkv: tuple[Array, Array, Array],
    causal: bool,
    broken: bool,
) -> bool:
    """Whether the kernel fails or returns NaN on the extreme inputs `qkv` (said once; a
    kernel `broken` on ordinary shapes already said it fails)."""
    kern, rep, name = ctx.kern, ctx.rep, EXTREMES_CHECK
    q, k, v = qkv
    try:
        out = kern.call(q, k, v, causal)
    except CallFailed as exc:
        if broken:
            return False
        rep.check(name, "fail", f"{label}: {exc}")
        how = repro.called(kern, causal, q, k, v)
        rep.add("fails-on-valid-input", f"fails on {label}: {exc}", "\n".join([*how, f"# {exc}"]))
        return True
    if np.isfinite(out).all():
        return False
    mode = " with the causal mask" if causal and not kern.always_causal else ""
    rep.check(name, "fail", f"NaN or inf with {label}{mode}")
    why = _renormalised(kern, q, k, out) if causal else ""
    # renormalised after the softmax, the mask's own finding: the NaN rows are its evidence
    said = (
        ("causal-mask-after-softmax", ", then renormalised: on")
        if why
        else ("nonfinite-extreme", ":")
    )
    rep.titled(said[0], f"{said[1]} {label}{mode}{why}", repro.nonfinite(kern, make, causal))
    return True


def _renormalised(kern: Kernel, q: Array, k: Array, out: Array) -> str:
    """Why the causal rows are NaN, when it is the mask-after-softmax-then-renormalise pattern.

    softmax(s) * keep / sum: a row whose largest score is in the masked future gets every kept
    weight rounded to 0 by the softmax, and dividing by their sum is 0/0.
    """
    dtype = np.float64 if kern.wide else np.float32
    s = (q @ k.T / np.sqrt(q.shape[-1])).astype(dtype)
    bad = [i for i in range(len(out)) if not np.isfinite(out[i]).all()]
    with np.errstate(all="ignore"):
        underflow = [bool((np.exp(s[i, : i + 1] - s[i].max()) == 0).all()) for i in bad]
    if not bad or not all(underflow):
        return ""
    return (
        f"; the NaN rows ({len(bad)} of {len(out)}) are exactly those whose largest score is in "
        "the masked future: the mask is applied after softmax and the rows renormalised "
        "(softmax, times the mask, divided by the row sum), so every kept weight underflows to "
        "0 and the row is 0/0; mask the scores with -inf before softmax instead"
    )


LONG = 100.0  # how many times longer than the others the outlier key is
LONG_KEY_CHECK = f"one key {LONG:g}x longer than the rest does not take over"


def long_key(ctx: Ctx) -> None:
    """Warn when one key much longer than the others takes over many queries' weights."""
    kern, rep, name = ctx.kern, ctx.rep, LONG_KEY_CHECK
    n, d = (32, 8) if not kern.shapes else max(kern.shapes, key=lambda s: (s[0] >= 32, -s[1]))
    j, causal = 5, kern.always_causal
    q, k, _ = np.random.default_rng(0).standard_normal((3, n, d))
    k[j] *= LONG
    v = np.zeros((n, d))
    v[j, 0] = 1.0
    rows = slice(j, None) if causal else slice(None)
    try:
        w = kern.call(q, k, v, causal)[rows, 0]
    except CallFailed as exc:
        rep.check(name, "skip", str(exc))
        return
    taken = float(np.mean(w > 0.5))
    said = f"key {j} gets most of the weight of {taken:.0%} of the queries"
    if not np.isfinite(w).all() or taken < 0.25:
        rep.check(name, "pass", said)
        return
    rep.check(name, "warn", said)
    lines = [
        *kern.source(),
        # set in numpy, then handed over: JAX and MLX arrays take no item assignment
        f"q, k, v = np.random.default_rng(0).standard_normal((3, {n}, {d}))",
        f"k[{j}] *= {LONG:g}",
        "v = np.zeros_like(v)",
        f"v[{j}, 0] = 1",
        f"q, k, v = {kern.backend.from_numpy('np.stack([q, k, v])')}",
        *repro.mask_lines(kern, n, causal),
        f"out = {repro.call_text(kern, causal)}",
        f"print(float((out[{rows.start or 0}:, 0] > 0.5).sum()) / {len(w)})  # share of queries "
        f"that give key {j} most of their weight: {taken:.2f}",
    ]
    rep.titled(
        "long-key-takeover",
        f": with key {j} made {LONG:g}x longer, {taken:.0%} of "
        "the queries give it most of their weight",
        "\n".join(lines),
    )
