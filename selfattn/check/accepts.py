"""The inputs a kernel accepts, learned from its failures: a Triton kernel (or any kernel that
asserts its shapes) may take only power-of-two head sizes, lengths that are a multiple of its
block, half precision or (batch, heads, n, d) tensors. Instead of giving up on the first
probe, look for a dtype, a layout and shapes it runs on, check with those, and say which
shapes were used and which were refused, with why."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from . import repro
from .context import SHAPES
from .frameworks import LAYOUTS, Backend, CallFailed, available, backends_for
from .interpret import blocks_launched, uses_triton
from .kernel import Kernel, Target
from .layout import mixing
from .runner import TargetError

# Powers of two, multiples of 16 (Triton's smallest tl.dot), n at most 64 and then 128 (the
# block of Triton's tutorial, for a kernel that runs at multiples of it only): the interpreter
# runs every program instance in Python, so probes stay small.
CANDIDATES = ((16, 16), (32, 16), (64, 16), (32, 32), (64, 32), (16, 64), (64, 64), (128, 16))
# the interpreter's memory guard (interpret._check) names the access and the tensor
OUTSIDE = re.compile(
    r"kernel (reads|writes) \d+ elements outside the tensors it was handed \(([^:]+)"
)
HALVES = ("float16", "bfloat16")  # tried after the target's own framework's widths
MOST = 5  # shapes checked at most
# a kernel that runs past its tensors at every candidate is tried at its block, read from the
# launch (BLOCK_M = BLOCK_N = 256), up to this length: the interpreter runs each program in
# Python, and a whole check at n = 256 takes about 12 s (triton_unmasked_block256.py)
LONGEST = 512
# (batch, n, d) too: a kernel fed a layout it does not expect reads past its inputs, which the
# interpreter's memory guard (interpret.guard_memory) turns into a refusal, not a crash
TRITON_LAYOUTS = ("bhnd", "bnhd", "bnd")


@dataclass
class Learned:
    """What the kernel took and refused."""

    used: list[tuple[int, int]] = field(default_factory=list)
    refused: list[tuple[tuple[int, int], str]] = field(default_factory=list)

    def outside(self, kern: Kernel) -> tuple[str, str] | None:
        """The finding's message and reproduction when some lengths the kernel refused are
        lengths at which it reads or writes outside its tensors (no mask at a length its block
        does not divide): a bug, not a refusal, since on a GPU nothing stops it. None when
        none were."""
        faults = [(nd, m) for nd, why in self.refused if (m := OUTSIDE.search(why))]
        if not faults or not self.used:
            return None
        (n, d), first = faults[0]
        lengths: dict[str, set[int]] = {}  # "reads past the end of Q" -> the lengths n
        for (length, _), m in faults:
            lengths.setdefault(f"{m[1]} {m[2]}", set()).add(length)
        said = "; ".join(
            f"{how} at n = {', '.join(map(str, sorted(ns)))}" for how, ns in lengths.items()
        )
        runs = ", ".join(f"{n}x{d}" for n, d in self.used)
        shown = repro.outside(kern, n, d, f"{first[1]} {first[2]}")
        return f": it {said}; it was checked at the shapes it runs at, n x d = {runs}", shown

    def note(self, kern: Kernel) -> str:
        said = ", ".join(f"{n}x{d}" for n, d in self.used)
        text = (
            f"the kernel refuses the usual probes; checked on the inputs it accepts: "
            f"{kern.backend.dtype} {LAYOUTS[kern.layout]} with n x d = {said}"
        )
        if self.refused:
            why = "; ".join(f"{n}x{d}: {reason}" for (n, d), reason in self.refused[:4])
            more = len(self.refused) - 4
            text += f"; refused {why}" + (f" (and {more} more)" if more > 0 else "")
        return text


def learn(t: Target) -> tuple[Kernel, Learned] | None:
    """A kernel set up on a dtype, layout and shape it runs, and the shapes it accepts.

    A Triton kernel gets torch tensors of (batch, heads, n, d), (batch, n, heads, d) or
    (batch, n, d) only: it reads memory through raw pointers, and a layout with no batch axis
    is none a launcher takes. Of the layouts that run, the first whose outputs mix positions
    wins, as in `layout.connect`."""
    if uses_triton(t.fn):
        backends = [Backend("torch", w) for w in ("float32", *HALVES)]
        layouts = TRITON_LAYOUTS
    else:
        backends = backends_for(t.fn) + [Backend("torch", h) for h in HALVES if available("torch")]
        layouts = tuple(LAYOUTS)
    failed: dict[str, str] = {}  # why, the first time each reason was met
    for backend in backends:
        kern = mixing(t, backend, [t.layout] if t.layout else layouts, _ran(failed))
        if kern is not None:
            return kern, _shapes(kern)
    if uses_triton(t.fn) and failed:  # say why, rather than only that it runs Triton kernels
        whys = "; ".join(
            f"{why} (first with {how} inputs)" for why, how in list(failed.items())[:3]
        )
        raise TargetError(f"{t.name} ran on none of the dtypes, layouts and shapes tried: {whys}")
    return None


def _ran(failed: dict[str, str]) -> Callable[[Kernel], tuple[np.ndarray, ...] | str]:
    """How a kernel is tried in a layout: on the first candidate shape it runs, each new reason
    why it does not noted in `failed`."""

    def ran(kern: Kernel) -> tuple[np.ndarray, ...] | str:
        got = _first_run(kern)
        if isinstance(got, str):
            failed.setdefault(got, f"{kern.backend.dtype} {LAYOUTS[kern.layout]}")
            return got
        kern.lp = kern.last_lp
        kern.layout_forced = True
        return got

    return ran


def _probe(n: int, d: int) -> np.ndarray:
    return np.random.default_rng([n, d]).standard_normal((3, n, d))


def _first_run(kern: Kernel) -> tuple[np.ndarray, ...] | str:
    """q, k, v and the output of the first candidate shape the kernel runs on, or why the
    last one failed."""
    ran: tuple[np.ndarray, ...] | str = "no shape tried"
    blocks_launched(forget=True)
    for n, d in CANDIDATES:
        ran = _run(kern, n, d)
        if not isinstance(ran, str):
            return ran
    for n, d in _at_block(ran):
        ran = _run(kern, n, d)
        if not isinstance(ran, str):
            return ran
    return ran


def _at_block(why: str) -> list[tuple[int, int]]:
    """Where a kernel that ran outside its tensors at every candidate length (`why`) runs: at
    the longest block it was launched with, if longer than every candidate (the lengths it
    accepts are that block's multiples, this the smallest), at each head size tried."""
    tried = max(n for n, _ in CANDIDATES)
    longer = [b for b in blocks_launched() if tried < b <= LONGEST]
    if not OUTSIDE.search(why) or not longer:
        return []
    return [(max(longer), d) for d in dict.fromkeys(d for _, d in CANDIDATES)]


def _run(kern: Kernel, n: int, d: int) -> tuple[np.ndarray, ...] | str:
    """q, k, v and the output on (n, d) inputs, or why the kernel does not run on them."""
    q, k, v = _probe(n, d)
    try:
        return q, k, v, kern.call(q, k, v)
    except CallFailed as exc:
        return str(exc)


def _shapes(kern: Kernel) -> Learned:
    learned = Learned()
    _try(kern, learned, dict.fromkeys((*SHAPES, *CANDIDATES)))
    if not learned.used and learned.refused:  # past its tensors at each: at its block
        _try(kern, learned, _at_block(learned.refused[-1][1]))
    return learned


def _try(kern: Kernel, learned: Learned, shapes: Iterable[tuple[int, int]]) -> None:
    for n, d in shapes:
        if len(learned.used) >= MOST:
            break
        why = _run(kern, n, d)
        if not isinstance(why, str):
            learned.used.append((n, d))
        else:
            learned.refused.append(((n, d), why))
