"""Finding the framework and layout a kernel accepts, on its first calls."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from .frameworks import (
    LAYOUTS,
    Backend,
    CallFailed,
    backends_for,
    to_layout,
)
from .kernel import Kernel, Target
from .masks import probe_mask
from .names import named
from .runner import TargetError
from .signature import Signature
from .standin import StandIn, retrying, stand_ins


def connect(t: Target) -> Kernel:
    """Find a framework and layout the kernel accepts on (6, 6) inputs, or TargetError."""
    t, standing = _standing_in(t)
    _needs_nothing_more(t.sig, t.name, t.args)
    failures: list[tuple[str, str]] = []
    q, k, v = np.random.default_rng(0).standard_normal((3, 6, 6))

    def ran(kern: Kernel) -> tuple[np.ndarray, ...] | str:
        try:
            out = retrying(lambda: _first_call(kern, q, k, v), standing)
        except CallFailed as exc:
            failures.append((f"{kern.backend.label} {to_layout(q, kern.layout).shape}", str(exc)))
            return str(exc)
        kern.rounded = kern.last_rounded or kern.weights_rounded(q, k)
        kern.lp = kern.rounded or kern.last_lp
        kern.layout_forced = t.layout is not None
        return q, k, v, out

    for backend in backends_for(t.fn):
        kern = mixing(t, backend, [t.layout] if t.layout else list(LAYOUTS), ran)
        if kern is not None:
            return kern
    raise TargetError(f"{t.name}(q, k, v) could not be called: {_failed(failures)}")


def _standing_in(t: Target) -> tuple[Target, list[StandIn]]:
    """The target with a stand-in for each object it takes before q, k and v and was not
    given (Hugging Face's `eager_attention_forward(module, query, ...)`), and the stand-ins."""
    missing = [p for p in t.sig.required if p not in t.args]
    names = stand_ins(missing, list(t.sig.params), t.sig.qkv or ())
    given = {n: StandIn() for n in names}
    # a head count the caller must give (MPT's `n_heads`, with q of (batch, n, heads * d)):
    # one head, q, k, v (batch, n, d), the head their last axis, as every probe is
    heads = {p: 1 for p in missing if p.lower() in (*named("heads"), *named("k, v heads"))}
    layout = t.layout or ("bnd" if heads else None)
    return replace(t, args={**t.args, **heads, **given}, layout=layout), list(given.values())


def _needs_nothing_more(sig: Signature, name: str, args: dict[str, Any]) -> None:
    """TargetError when the kernel requires arguments the checker cannot make up."""
    missing = [p for p in sig.required if p not in args]
    if not missing:
        return
    says = ", ".join(f"`{p}`" for p in missing)
    example = " ".join(f"--arg {p}=VALUE" for p in missing)
    raise TargetError(
        f"{name} needs {says}, which the checker cannot make up: pass "
        f"{'it' if len(missing) == 1 else 'them'} with {example} (in Python: "
        f"check(fn, args={{{', '.join(repr(p) + ': ...' for p in missing)}}}))"
    )


def mixing(
    t: Target,
    backend: Backend,
    layouts: Sequence[str],
    ran: Callable[[Kernel], tuple[np.ndarray, ...] | str],
) -> Kernel | None:
    """The kernel on `backend` in the first of `layouts` it runs in (`ran`: q, k, v and the
    output, or why not) whose outputs mix positions, else in the first it runs in; None when
    it runs in none. With one layout (forced), that one if it runs.

    Mixing decides because a (b, n, h, d) kernel given (1, 1, n, d) runs, but treats each
    position as a head of its own, and every later probe of the check would be of that."""
    first: Kernel | None = None
    for lay in layouts:
        kern = t.kernel(backend, lay)
        got = ran(kern)
        if isinstance(got, str):
            continue
        if len(layouts) == 1 or kern.mixes(*got):
            return kern
        first = first or kern
    return first


def _first_call(kern: Kernel, q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
    """The plain call; when it fails on a required mask passed as None, the mask's convention
    is probed and the call made again with a mask that keeps every key (picoGPT's
    `attention(q, k, v, mask)` adds its mask to the scores, and cannot add None)."""
    try:
        return kern.call(q, k, v)
    except CallFailed:
        unprobed = [m for m in kern.masks.values() if m.required and m.kind is None]
        if not unprobed:
            raise
    try:
        for param in unprobed:
            probe_mask(kern, param)
        return kern.call(q, k, v)
    except CallFailed:
        for param in unprobed:  # another layout may take None after all
            param.kind, param.form = None, "square"
        raise


def _failed(failures: list[tuple[str, str]]) -> str:
    """The failures of the first call, said once when every attempt failed the same way."""
    whys = list(dict.fromkeys(why for _, why in failures))
    if len(whys) == 1:
        return f"{whys[0]} (tried {', '.join(how for how, _ in failures)} inputs)"
    return "; ".join(f"with {how} inputs: {why}" for how, why in failures[:3])
