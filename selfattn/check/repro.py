"""Minimal reproductions: the smallest inputs that show a finding, as source to paste and run.

The one writer of reproduction text: every array literal, mask and call line a reproduction
prints is written here, for a kernel and for a layer alike, in the words of its array library's
entry of FRAMEWORKS. The other modules put these lines together, they write none of their own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from .frameworks import Framework, layout_text
from .kernel import Kernel
from .questions import future_leaks
from .reference import CAUSAL, Variant, agree, tolerance

if TYPE_CHECKING:
    from .layer import CausalMask, Layer
    from .rotary import Rotary
    from .signature import MaskParam

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
    mask = mask_lines(kern, q.shape[0], causal)
    lines = [*kern.source(), *literals(kern, q=q, k=k, v=v), *mask]
    return [*lines, f"out = {call_text(kern, causal)}"]


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
            for i, rows, b in future_leaks(a, range(n - 1), _later(kern, q, k, v)):
                if rows.max() <= tolerance(q, k, v, kern.lp, CAUSAL):
                    continue
                k2, v2 = _future(k, v, i)
                lines = kern.source() + literals(kern, q=q, k=k, v=v)
                lines += [
                    f"# k2, v2: k, v with only positions > {i} changed",
                    *literals(kern, k2=k2, v2=v2),
                    *mask_lines(kern, n, True),
                    f"a = {call_text(kern, True)}",
                    f"b = {call_text(kern, True, 'q', 'k2', 'v2')}",
                    f"print(a[:{i + 1}] - b[:{i + 1}])  # only positions > {i} changed: "
                    "should be all 0",
                    "# got:",
                    *show(a[: i + 1] - b[: i + 1]),
                ]
                return "\n".join(lines)
    return ""


def _future(k: Array, v: Array, i: int) -> tuple[Array, Array]:
    """k and v with a different future after position i, still small integers."""
    k2, v2 = k.copy(), v.copy()
    k2[i + 1 :] = -k[i + 1 :] + 1
    v2[i + 1 :] = v[i + 1 :] + 3
    return k2, v2


def _later(kern: Kernel, q: Array, k: Array, v: Array) -> Callable[[int], Array | None]:
    return lambda i: kern.answer(q, *_future(k, v, i), True)


def random_inputs(kern: Kernel, seed: int, *shape: int) -> list[str]:
    """Source for q, k, v = standard normal (3, *shape) draws from default_rng(seed)."""
    draw = f"np.random.default_rng({seed}).standard_normal((3, {', '.join(map(str, shape))}))"
    return [f"q, k, v = {kern.backend.from_numpy(draw)}"]


def outside(kern: Kernel, n: int, d: int, said: str) -> str:
    """A call at a length where the kernel reads or writes outside its tensors: under the
    interpreter's memory guard it raises instead of reading whatever lies there."""
    return "\n".join(
        [
            *kern.source(),
            "from selfattn.check.interpret import guard_memory",
            "guard_memory()  # an access outside the tensors raises, as a GPU may not",
            *random_inputs(kern, 0, n, d),
            f"out = {call_text(kern, False)}",
            f"# InterpreterError: OutOfBounds, the kernel {said}",
        ]
    )


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


# -- a kernel's call and masks ---------------------------------------------------------------


def call_text(
    kern: Kernel, causal: bool, q: str = "q", k: str = "k", v: str = "v", masked: bool = False
) -> str:
    """The call as source text, bound as the kernel binds its values (Kernel.bind); `masked`:
    `mask` is always passed."""
    qkv = [f"{x}{layout_text(kern.layout)}" for x in (q, k, v)]
    masks = _masks_text(kern, causal, masked, q)
    given = {key: repr(value) for key, value in kern.args.items()}
    parts, named = kern.bind(qkv, str(causal), masks, f"{q}.shape[-1] ** -0.5", given)
    parts += [f"{key}={value}" for key, value in named.items()]
    return f"{kern.name}({', '.join(parts)}){kern.back}"


def _masks_text(kern: Kernel, causal: bool, masked: bool, q: str) -> dict[str, str]:
    """The mask arguments as source text: `mask` where the causal mask goes (or always,
    when `masked`), a mask keeping every key where one is required."""
    said = {}
    for name, param in kern.masks.items():
        if name == kern.mask and (masked or (causal and kern.mask_arg(2, True) is not None)):
            said[name] = "mask"
        elif param.required:
            said[name] = _full_text(kern, param, q)
    return said


def _full_text(kern: Kernel, param: MaskParam, q: str) -> str:
    """Source text for a mask that keeps everything, for a required mask not under test."""
    size = f"1, {q}.shape[-2]" if param.form == "padding" else f"{q}.shape[-2], {q}.shape[-2]"
    if param.form == "batched":  # (1, 1, n, n), or (1, n, n) beside (1, n, d) inputs
        size = f"1, {size}" if kern.layout == "bnd" else f"1, 1, {size}"
    return kern.backend.framework.full_mask(param.kind, size)


def mask_lines(kern: Kernel, n: int, causal: bool) -> list[str]:
    """The line building the causal mask, none when it is not passed (without `causal`,
    a required mask is written out in the call, keeping every key)."""
    if not causal or kern.mask_arg(n, causal) is None:
        return []
    lib = kern.backend.lib
    if kern.mask_form == "padding":
        keep = f"{lib}.ones((1, {n}), dtype=bool)"
    else:
        keep = f"{lib}.tril({lib}.ones(({n}, {n}), dtype=bool))"
        if kern.mask_form == "batched":
            keep += "[None]" if kern.layout == "bnd" else "[None, None]"
    return ["mask = " + kern.backend.framework.mask(kern.mask_kind or "keep", keep)]


# -- a layer's input, mask and call ----------------------------------------------------------


def drawn(
    framework: Framework, var: str, shape: tuple[int | str, ...], seed: int, dtype: str
) -> str:
    """`var = ` standard normal values of `shape` (sizes, or an expression: `out.shape`) from
    `seed`, in `dtype` (a bare name: `float32`): a layer's input x, as its library draws it."""
    size = ", ".join(map(str, shape))
    return f"{var} = {framework.draw.format(shape=size, seed=seed, dtype=dtype)}"


# How a key-padding mask may go in: (batch, n) as key_padding_mask and attention_mask take
# it, over the scores' last axis, or over their second (Apple's ANE layers, scores laid out
# (batch, keys, 1, queries)); the index that makes each of a vector of n
KEY_SHAPES = {
    "(1, n)": "[None]",
    "(1, 1, 1, n)": "[None, None, None]",
    "(1, n, 1, 1)": "[None, :, None, None]",
}


def causal_def(framework: Framework, mask: CausalMask, dtype: str) -> list[str]:
    """`def causal(n)`, making the causal mask as the layer's mask argument takes it, in `dtype`
    (a bare name); what CausalMask.make runs, so the mask checked is the mask printed."""
    keep = framework.triangle + ("" if mask.square else "[None, None]")
    if mask.keys:  # the last third of the keys padded, as reference.KEEP["padded"]
        keep = "(torch.arange(n) < n - max(1, n // 3))" + KEY_SHAPES[mask.keys]
    made = {
        "additive": framework.lowest.format(keep="keep", dtype=dtype),
        "keep": "keep",
        "block": "~keep",
        "ones": framework.ones.format(keep="keep", dtype=dtype),
    }[mask.form]
    return [
        f"def {mask.fn}(n):  # the {mask.fn} mask as `{mask.param}` takes it: {mask.said}",
        f"    keep = {keep}",
        f"    return {made}",
        "",
    ]


def layer_call(layer: Layer, name: str, x: str) -> str:
    """The layer's call on `x` as source text: x as often as the layer takes it, and the
    caller's arguments, the mask, the rotation and the flag it is checked with."""
    proj = layer.proj
    given = ", ".join([f"{k}={x}" for k in proj.keywords] or [x] * proj.inputs)
    # a required mask argument handed None is handed the causal mask instead, once found
    args = {k: v for k, v in layer.args.items() if not layer.mask or k != layer.mask.param}
    given += "".join(f", {k}={v!r}" for k, v in args.items())
    given += f", {layer.mask.param}={layer.mask.fn}(x.shape[1])" if layer.mask else ""
    given += layer.rotary.given if layer.rotary else ""
    given += "".join(c.given for c in layer.companions)
    return f"{name}({given + (f', {layer.flag}=True' if layer.flag else '')})"


def rotation_def(rotary: Rotary, dtype: str) -> list[str]:
    """`def rotation(n)`: angle 0 at every position as the layer's rotation argument takes it,
    in torch's `dtype` (torch.float32); what Rotary.make runs, so the angles are the printed
    ones. Only torch layers are handed a rotation."""
    size, half = rotary.head_size, rotary.head_size // 2
    wide = "torch.complex128" if dtype == "torch.float64" else "torch.complex64"
    made = {
        "apart": f"torch.ones(n, {half}, dtype={dtype}), torch.zeros(n, {half}, dtype={dtype})",
        "apart, whole": f"torch.ones(1, n, {size}, dtype={dtype}), "
        f"torch.zeros(1, n, {size}, dtype={dtype})",
        "apart, broadcast": f"torch.ones(1, n, 1, dtype={dtype}), "
        f"torch.zeros(1, n, 1, dtype={dtype})",
        "cos_sin": f"torch.ones(1, n, {size}, dtype={dtype}), "
        f"torch.zeros(1, n, {size}, dtype={dtype})",
        "complex": f"torch.ones(n, {half}, dtype={wide})",
        "pairs": f"torch.stack([torch.ones(n, {half}), torch.zeros(n, {half})], -1).to({dtype})",
    }[rotary.form]
    return [
        f"def rotation(n):  # {rotary.params} at angle 0, {rotary.said}: q and k as they are",
        f"    return {made}",
        "",
    ]
