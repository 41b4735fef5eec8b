"""Tiled kernels: keys streamed in tiles through an online softmax, or split and merged.

Such a kernel is exact only if everything summed against an old running max is rescaled when
the max rises, the sum is divided once at the end, and partial results of key splits are
brought to one max before they are merged. Its bugs hide on short inputs (one tile) and on
inputs whose first tile holds the maximum, so the probes here are long and shaped:

- the order of the keys: attention over the keys is a sum, so permuting the keys and values
  together cannot change the output. This needs no reference at all.
- scores that rise along the keys raise the running max in every tile; scores that fall never
  raise it after the first. A kernel right on falling scores and wrong on rising ones forgets
  the rescale.
- within one tile every bug above still weighs keys correctly against each other, so the
  weight ratio of neighbouring keys is right everywhere except at tile edges: that is what
  tells a tiled bug from any other output that depends on the key order. (With tiles of one
  key every pair is an edge, and only the unrescaled loop is still named.)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import repro
from .context import Ctx, weights
from .frameworks import CallFailed
from .kernel import Kernel
from .questions import moved
from .reference import Variant, agree, tolerance

Array = np.ndarray
LONG = 160  # keys: past one tile of 128, the largest in common use, and any few splits
WIDTH = 32
CLIMB = 4.0  # how far each query's scores rise along the keys, for the slowest query
# Share of neighbouring key pairs weighed wrongly against each other that a tiling bug can
# explain: they sit on tile edges, so with tiles of two keys or more, at most half of them.
EDGES = 0.6


@dataclass(frozen=True)
class Inputs:
    """The long inputs: random, the same keys shuffled, and scores rising and falling."""

    q: Array
    k: Array
    v: Array
    order: Array
    rising: tuple[Array, Array, Array]

    @property
    def falling(self) -> tuple[Array, Array, Array]:
        q, k, v = self.rising
        return q, k[::-1], v[::-1]


def inputs() -> Inputs:
    rng = np.random.default_rng([LONG, WIDTH, 7])
    q, k, v = rng.standard_normal((3, LONG, WIDTH))
    # Score (i, j) = a_i t_j with a_i in [1, 2] and t_j climbing from 0 to CLIMB: every key
    # raises every query's max, and no weight is so small that it underflows in float16.
    up_q = np.zeros((LONG, WIDTH))
    up_q[:, 0] = np.linspace(1.0, 2.0, LONG) * np.sqrt(WIDTH)
    up_k = np.zeros((LONG, WIDTH))
    up_k[:, 0] = np.linspace(0.0, CLIMB, LONG)
    return Inputs(q, k, v, rng.permutation(LONG), (up_q, up_k, v))


@dataclass(frozen=True)
class Seen:
    """What the kernel did on the long inputs."""

    moved: float  # how far the output moved when the keys were shuffled
    tol: float
    rising: bool  # agrees with the reference with scores rising along the keys
    falling: bool

    @property
    def ok(self) -> bool:
        return self.moved <= self.tol and self.rising and self.falling

    @property
    def detail(self) -> str:
        said = [f"shuffling the keys and values together moves the output by {self.moved:.3g}"]
        said += [] if self.rising else ["wrong when the scores rise along the keys"]
        said += ["right when they fall"] if self.falling else ["wrong when they fall"]
        return f"n = {LONG}: " + "; ".join(said)


def diagnose(ctx: Ctx, expected: Variant, *, passed: bool) -> bool:
    """Probe `ctx.kern` as a tiled kernel; True when a finding was added.

    `passed`: the kernel matched the reference on the short probes, so any failure here is
    news (a tile longer than them) and is always reported; otherwise only a tiled bug named
    here is, and the callers go on to their own diagnosis.
    """
    kern, rep = ctx.kern, ctx.rep
    check = f"keys in any order; scores rising or falling along {LONG} keys"
    if expected.window is not None:  # local attention: the order of the keys is what it reads
        return False
    x = inputs()
    try:
        seen = _run(kern, x, expected)
    except CallFailed as exc:
        if passed:
            rep.check(check, "skip", f"the kernel failed on n = {LONG}: {exc}")
        return False
    if seen.ok:
        if passed:
            rep.check(check, "pass", f"n x d = {LONG}x{WIDTH}")
        return False
    found = _name(kern, x, seen) if seen.moved > seen.tol else None
    if found is None and not passed:
        return False
    rep.check(check, "fail", seen.detail)
    rep.titled(found or "wrong-output", f": {seen.detail}", _repro(kern, seen, expected))
    return True


def _run(kern: Kernel, x: Inputs, expected: Variant) -> Seen:
    out = kern.call(x.q, x.k, x.v)
    shuffled = kern.call(x.q, x.k[x.order], x.v[x.order])
    tol = tolerance(x.q, x.k, x.v, kern.lp, expected)
    marks = []
    for q, k, v in (x.rising, x.falling):
        a = agree(kern.call(q, k, v), expected, q, k, v, kern.lp)
        marks.append(a is not None and a.ok)
    return Seen(moved(out, shuffled), tol, *marks)


def _name(kern: Kernel, x: Inputs, seen: Seen) -> str | None:
    """Which tiled bug explains what was seen, if any."""
    w = weights(kern, x.q, x.k, False)
    if w is None or not np.isfinite(w).all() or (w <= 0).any():
        return None
    scores = x.q @ x.k.T / np.sqrt(WIDTH)
    drift = np.diff(np.log(w) - scores, axis=1)  # 0 between keys weighed right against each other
    slack = max(1e-6, 64 * kern.lp.eps)
    if np.mean(np.abs(drift) > slack) > EDGES:
        return None  # wrong between neighbours inside tiles too: not a tiling bug
    if np.max(np.abs(w.sum(axis=1) - 1.0)) > max(1e-4, 16 * kern.lp.eps):
        return "online-softmax-early-normalize"
    if seen.falling:
        return "online-softmax-no-rescale"
    return "split-combine-unscaled"


def _repro(kern: Kernel, seen: Seen, expected: Variant) -> str:
    """Scores rising along the keys, and the same keys and values in another order (or, when
    the order moved nothing, the output beside the reference's)."""
    b = kern.backend
    lines = [
        *kern.source(),
        f"n, d = {LONG}, {WIDTH}",
        "# score (i, j) climbs along the keys: every tile raises the running max",
        "q0 = np.zeros((n, d)); q0[:, 0] = np.linspace(1, 2, n) * np.sqrt(d)",
        f"k0 = np.zeros((n, d)); k0[:, 0] = np.linspace(0, {CLIMB:g}, n)",
        "v0 = np.random.default_rng(0).standard_normal((n, d))",
        "order = np.random.default_rng(1).permutation(n)",
        f"q, k, v = {b.from_numpy('np.stack([q0, k0, v0])')}",
        f"k2, v2 = {b.from_numpy('np.stack([k0[order], v0[order]])')}",
    ]
    if seen.moved <= seen.tol:
        called = [*lines[:-1], f"a = {repro.call_text(kern, False)}"]
        return "\n".join(_against(kern, expected, called))
    lines += [
        f"a = {repro.call_text(kern, False)}",
        f"b = {repro.call_text(kern, False, 'q', 'k2', 'v2')}",
        "print(abs(a - b).max())  # the same keys and values in another order: should be ~0",
    ]
    try:
        got = moved(*_pair(kern))
    except CallFailed:
        return "\n".join(lines)
    return "\n".join([*lines, f"# got: {got:.3g}"])


def _against(kern: Kernel, expected: Variant, lines: list[str]) -> list[str]:
    """The rising inputs' output at the row furthest from the reference's, and that row."""
    q, k, v = _pair_inputs()
    try:
        out = kern.call(q, k, v)
    except CallFailed:
        return lines
    ref = expected.run(q, k, v)
    if ref is None:
        return lines
    i = int(np.argmax(np.abs(out - ref).max(axis=1)))
    said = np.round(ref[i, :4], 4).tolist()
    return [*lines, f"print(a[{i}, :4])", f"# expected ({expected.detail}): {said}"]


def _pair_inputs() -> tuple[Array, Array, Array]:
    q, k, _ = inputs().rising
    return q, k, np.random.default_rng(0).standard_normal((LONG, WIDTH))


def _pair(kern: Kernel) -> tuple[Array, Array]:
    """The two outputs the reproduction prints the difference of."""
    q, k, v = _pair_inputs()
    order = np.random.default_rng(1).permutation(LONG)
    return kern.call(q, k, v), kern.call(q, k[order], v[order])
