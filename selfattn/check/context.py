"""What every kernel check shares: the probe inputs, the outputs per probe, and matching."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .facts import Facts
from .frameworks import CallFailed
from .kernel import Kernel
from .reference import Precision, Variant, agree
from .report import Report

Array = np.ndarray
# Odd n, n != d both ways, and d up to 128; two seeds each.
SHAPES = ((6, 6), (7, 5), (5, 16), (16, 8), (33, 128))
SEEDS = (0, 1)


@dataclass(frozen=True)
class Probe:
    q: Array
    k: Array
    v: Array

    @property
    def shape(self) -> tuple[int, int]:
        return self.q.shape


def make_probes(shapes: list[tuple[int, int]] | None = None) -> list[Probe]:
    """Two seeds of each shape: SHAPES, or those a kernel that refuses them accepts."""
    out = []
    for n, d in shapes or SHAPES:
        for seed in SEEDS:
            q, k, v = np.random.default_rng([seed, n, d]).standard_normal((3, n, d))
            out.append(Probe(q, k, v))
    return out


Outs = list["Array | str"]  # per probe: the output, or why the call failed


@dataclass
class Ctx:
    """One check of a kernel: what its rules share (rules.State)."""

    kern: Kernel
    rep: Report
    probes: list[Probe]
    facts: Facts = field(default_factory=Facts)  # what a rule tells the rules after it

    @property
    def subject(self) -> Kernel:
        return self.kern


def gather(kern: Kernel, probes: list[Probe], causal: bool) -> Outs:
    outs: Outs = []
    for p in probes:
        try:
            outs.append(kern.call(p.q, p.k, p.v, causal))
        except CallFailed as exc:
            outs.append(str(exc))
    return outs


def matches(variant: Variant, probes: list[Probe], outs: Outs, lp: Precision) -> bool:
    """Whether the outputs agree with `variant` on every input where both are defined."""
    seen = 0
    for p, o in zip(probes, outs, strict=True):
        if isinstance(o, str):
            continue
        a = agree(o, variant, p.q, p.k, p.v, lp)
        if a is None:
            continue
        if not a.ok:
            return False
        seen += 1
    return seen > 0


def shapes(probes: list[Probe], outs: Outs | None = None) -> str:
    """ "10 inputs: n x d = ...": the inputs a check used (those the kernel answered)."""
    used = [p for i, p in enumerate(probes) if outs is None or not isinstance(outs[i], str)]
    seen = dict.fromkeys(f"{p.shape[0]}x{p.shape[1]}" for p in used)
    return f"{len(used)} inputs: n x d = {', '.join(seen)}; seeds {', '.join(map(str, SEEDS))}"


def weights(kern: Kernel, q: Array, k: Array, causal: bool) -> Array | None:
    """The weight matrix, read off with one-hot values (attention is linear in v)."""
    n, d = q.shape
    a = np.zeros((n, n))
    for start in range(0, n, d):
        cols = list(range(start, min(n, start + d)))
        v = np.zeros((n, d))
        v[cols, range(len(cols))] = 1.0
        out = kern.answer(q, k, v, causal)
        if out is None:
            return None
        a[:, cols] = out[:, : len(cols)]
    return a
