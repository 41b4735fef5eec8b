"""Minimal reproductions: the smallest inputs that show a finding, as source to paste and run."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .kernel import Kernel
from .questions import moved
from .reference import CAUSAL, Variant, agree, tolerance

Array = np.ndarray
# Small shapes first; integer entries keep the literals short and exact.
TINY = ((2, 2), (3, 2), (2, 3), (3, 3), (4, 3), (3, 4), (4, 4), (5, 4), (6, 5), (7, 5))


def tiny(n: int, d: int, seed: int) -> tuple[Array, Array, Array]:
    rng = np.random.default_rng([seed, n, d, 99])
    q, k, v = rng.integers(-2, 3, size=(3, n, d)).astype(np.float64)
    return q, k, v


def literals(kern: Kernel, **named: Array) -> list[str]:
    """`name = np.array(...)` lines rebuilding each array."""
    return [f"{name} = {kern.backend.literal(x)}" for name, x in named.items()]


def show(x: Array | None) -> list[str]:
    """An array as comment lines, rounded to 4 places."""
    with np.printoptions(precision=4, suppress=True, linewidth=88):
        return [
            "#   " + line for line in np.array2string(np.asarray(x), separator=", ").splitlines()
        ]


def called(kern: Kernel, causal: bool, q: Array, k: Array, v: Array) -> list[str]:
    """A reproduction up to `out = ...`: the imports, q, k, v as literals, the causal mask when
    one is passed, and the call."""
    mask = kern.mask_lines(q.shape[0], causal)
    lines = [*kern.source(), *literals(kern, q=q, k=k, v=v), *mask]
    return [*lines, f"out = {kern.call_text(causal)}"]


def mismatch(kern: Kernel, expected: Variant, causal: bool) -> str:
    """Small inputs on which the kernel disagrees with `expected`, with both outputs.

    The smallest inputs whose difference is plain to see (a tenth of the output's size) win;
    failing that, the clearest difference found.
    """
    best: tuple[float, tuple[Array, Array, Array, Array]] | None = None
    # a kernel that takes only some shapes (its block, its head sizes) may refuse every tiny
    # one: then the shapes it was checked on
    for n, d in (*TINY, *(kern.shapes or ())):
        for seed in range(3):
            q, k, v = tiny(n, d, seed)
            out = kern.answer(q, k, v, causal)
            a = agree(out, expected, q, k, v, kern.lp) if out is not None else None
            if a is None or a.ok or out is None:
                continue
            ref = expected.run(q, k, v)
            size = float(np.nanmax(np.abs(ref))) if ref is not None else 1.0
            clear = a.err / max(size, 1e-12)
            if best is None or clear > best[0]:
                best = (clear, (q, k, v, out))
            if clear >= 0.1:
                break
        if best is not None and best[0] >= 0.1:
            break
    if best is None:
        return ""
    q, k, v, out = best[1]
    lines = called(kern, causal, q, k, v)
    lines += ["print(out)", f"# expected ({expected.detail}):"]
    return "\n".join([*lines, *show(expected.run(q, k, v)), "# got:", *show(out)])


def leak(kern: Kernel) -> str:
    """Small inputs where changing only positions after i moves the causal output at i."""
    for n, d in TINY[1:]:
        for seed in range(3):
            q, k, v = tiny(n, d, seed)
            a = kern.answer(q, k, v, True)
            if a is None:
                continue
            for i in range(n - 1):
                k2, v2 = k.copy(), v.copy()
                k2[i + 1 :] = -k[i + 1 :] + 1  # a different future, still small integers
                v2[i + 1 :] = v[i + 1 :] + 3
                b = kern.answer(q, k2, v2, True)
                if b is None:
                    continue
                if moved(a[: i + 1], b[: i + 1]) <= tolerance(q, k, v, kern.lp, CAUSAL):
                    continue
                lines = kern.source() + literals(kern, q=q, k=k, v=v)
                lines += [
                    f"# k2, v2: k, v with only positions > {i} changed",
                    *literals(kern, k2=k2, v2=v2),
                    *kern.mask_lines(n, True),
                    f"a = {kern.call_text(True)}",
                    f"b = {kern.call_text(True, 'q', 'k2', 'v2')}",
                    f"print(a[:{i + 1}] - b[:{i + 1}])  # only positions > {i} changed: "
                    "should be all 0",
                    "# got:",
                    *show(a[: i + 1] - b[: i + 1]),
                ]
                return "\n".join(lines)
    return ""


def random_inputs(kern: Kernel, seed: int, *shape: int) -> list[str]:
    """Source for q, k, v = standard normal (3, *shape) draws from default_rng(seed)."""
    draw = f"np.random.default_rng({seed}).standard_normal((3, {', '.join(map(str, shape))}))"
    return [f"q, k, v = {kern.backend.from_numpy(draw)}"]


def nonfinite(
    kern: Kernel,
    make: Callable[[int, int], tuple[Array, Array, Array]],
    causal: bool,
) -> str:
    """Small extreme inputs on which the output has NaN or inf."""
    for n, d in TINY:
        q, k, v = make(n, d)
        out = kern.answer(q, k, v, causal)
        if out is None or np.isfinite(out).all():
            continue
        lines = called(kern, causal, q, k, v)
        lines += ["print(out)", "# got:", *show(out)]
        return "\n".join(lines)
    return ""
