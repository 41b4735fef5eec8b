"""The gradients of a layer's own weights (W_q, W_k, W_v, W_o, a fused or packed in_proj, a
norm's weight): each parameter's gradient from the layer's backward, read along one random
direction u, against the float64 derivative along u of the layer's forward, by a central
difference on a deep copy of the layer in float64.

The forward is checked first and is right by then, so its derivative is the truth whatever
the layer's backward does: a custom autograd.Function with a hand-written backward, a
projection computed under torch.no_grad() or detached (`k = self.key(x).detach()`), which
runs and trains and leaves that weight where it was initialised.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from . import backward as bw
from . import repro
from .frameworks import FRAMEWORKS, CallFailed, keras_backend, summarize
from .reference import softmax
from .runner import Timeout

if TYPE_CHECKING:
    from .layer import Layer, LayerRun
    from .layer_text import LayerText

PROBES = ((8, 0), (16, 2))  # (n, seed) of x: layer.SIZES' first and longest
# The central differences' step along a unit direction, and their extrapolation to step 0
# (Richardson: (4 D(h) - D(2h)) / 3). A step this long keeps the difference clear of the
# rounding of a layer that computes its softmax in float32 even in a float64 copy, as
# OpenNMT's and Hugging Face's do.
STEP = 0.05
ROUNDING = 16  # the backward's rounding may reach this many epsilons of the gradient's size
FLOOR = 1e-5  # and, for a gradient that is 0 (a key's bias), this much of the largest one
SEED = 33  # dO and the directions
RELU_SKIP = "its output goes through a ReLU, whose kink central differences step across"


@dataclass(frozen=True)
class Slope:
    """One parameter's derivative along one direction: the backward's and the forward's."""

    name: str
    got: float  # <gradient from the layer's backward, u>
    want: float  # (L(w + h u) - L(w - h u)) / 2h in float64, L = sum(dO * y)
    size: float  # |gradient| + |want|: what the rounding is relative to
    none: bool  # no gradient at all: None, or zero everywhere
    # how much the difference moves from step h to 2h: a bound on its own error, large for a
    # layer with a norm on q and k, whose derivatives change fast
    spread: float = 0.0

    def off(self, eps: float, largest: float) -> bool:
        """Off by more than rounding: `largest` is the largest size among the layer's."""
        tol = ROUNDING * eps * self.size + max(FLOOR, eps / 10) * largest + self.spread
        return abs(self.got - self.want) > tol


def rule(run: LayerRun) -> None:
    """Every trainable parameter's gradient of a layer whose forward is right against the
    float64 derivative of the forward, on two inputs; a weight that gets none is
    `backward-no-gradient`, another gap `backward-wrong-output`."""
    module, layer, rep, label = run.module, run.layer, run.rep, run.facts["label"]
    name = f"gradients of the layer's weights match the float64 forward's ({label})"
    if keras_backend(module) or layer.proj.through_relu:
        rep.check(name, "skip", RELU_SKIP if layer.proj.through_relu else KERAS_SKIP)
        return
    probes = [p for p in PROBES if p in layer.sizes]
    measured = _measured(module, layer, probes)
    if isinstance(measured, str):
        rep.check(name, "skip", measured)
        return
    slopes, wrong = measured
    if not slopes:
        rep.check(name, "skip", "the layer has no trainable parameters")
        return
    params = sorted({s.name for s in slopes})
    if not wrong:
        said = ", ".join(f"`{p}`" for p in params)
        lengths = ", ".join(str(n) for n, _ in probes)
        rep.check(name, "pass", f"{len(params)} parameters ({said}), n = {lengths}")
        return
    id_, detail = _said(wrong)
    core = _traced(module, layer) if id_ == "backward-wrong-output" else None
    if core is not None:
        id_, said = core
        detail += f"; {said}"
    rep.check(name, "fail", detail)
    rep.titled(id_, f" ({label}): {detail}", _repro(layer.text, wrong[0].name, PROBES[0]))


def _measured(
    module: Any, layer: Layer, probes: list[tuple[int, int]]
) -> tuple[list[Slope], list[Slope]] | str:
    """Every slope on the probes' inputs and those that are off, or why none could be had."""
    slopes: list[Slope] = []
    wrong: list[Slope] = []
    for n, seed in probes:
        got = _slopes_on(module, layer, layer.x(n, seed))
        if isinstance(got, str):
            return got
        slopes += got
        largest = max((s.size for s in got), default=0.0)
        wrong += [s for s in got if s.off(layer.lp.eps, largest)]
    return slopes, wrong


# a Keras layer computes in its dtype policy's dtype (float32) whatever its weights are cast
# to, and is copied through its config: no float64 twin of it can be made from outside
KERAS_SKIP = "a Keras layer computes in float32 whatever its weights are cast to: no float64 twin"


def _slopes_on(module: Any, layer: Layer, x: Any) -> list[Slope] | str:
    """The slopes on x, computed on the worker thread, or why they could not be."""
    given, extra = layer.inputs(x, layer.dtype)
    given64, extra64 = layer.inputs(x, _float64())
    fn = layer.runner.fn
    # a block's method (CLIP's `attention`): that method, and the weights of the layer it runs
    part = (fn.__name__, f"{layer.proj.holder}.") if fn is not module else None
    try:
        return layer.runner.call_other(_slopes, module, part, given, extra, given64, extra64)
    except CallFailed as exc:
        return f"the backward failed: {exc}"
    except Timeout as exc:
        return f"the backward is too slow: {exc}"


def _said(wrong: list[Slope]) -> tuple[str, str]:
    """The finding for the weights whose gradient is off: none at all, or a wrong one."""
    first = wrong[0]
    missing = sorted({s.name for s in wrong if s.none})
    if missing:
        said = ", ".join(f"`{p}`" for p in missing)
        detail = f"{said} {'get' if len(missing) > 1 else 'gets'} no gradient, though the "
        detail += f"output depends on {'them' if len(missing) > 1 else 'it'}"
        return "backward-no-gradient", detail
    bad = sorted({s.name for s in wrong})
    return "backward-wrong-output", (
        f"{', '.join(f'`{p}`' for p in bad)}: along one direction the backward gives "
        f"{first.got:.4g}, the float64 forward's derivative {first.want:.4g}"
    )


def _traced(module: Any, layer: Layer) -> tuple[str, str] | None:
    """A wrong gradient traced to the attention core's own backward: its kernel-level id and
    what it says, or None when the core is right or cannot be run alone."""
    given, extra = layer.inputs(layer.x(*PROBES[0]), layer.dtype)
    try:
        return layer.runner.call_other(_core_bug, module, given, extra, layer.lp)
    except (CallFailed, Timeout):
        return None


def _float64() -> Any:
    import torch  # pyright: ignore[reportMissingImports]

    return torch.float64


def _first(out: Any) -> Any:
    return out[0] if isinstance(out, tuple | list) else out


def _slopes(
    module: Any, part: Any, given: list, extra: dict, given64: list, extra64: dict
) -> list[Slope] | str:
    """On the worker thread: the layer's gradients for dO, then each parameter's central
    difference on a float64 copy along a direction of its own; `part`, the method called and
    the prefix of the weights it uses, when the target is a block's method."""
    import torch  # pyright: ignore[reportMissingImports]

    params = [(n, p) for n, p in module.named_parameters() if p.requires_grad]
    params = [(n, p) for n, p in params if p.is_floating_point()]
    params = [(n, p) for n, p in params if part is None or n.startswith(part[1])]
    gen = torch.Generator().manual_seed(SEED)
    with torch.enable_grad():
        out = _first(_part(module, part)(*given, **extra))
        if not isinstance(out, torch.Tensor):
            return f"the layer returned {type(out).__name__}"
        do = torch.randn(out.shape, generator=gen, dtype=torch.float64)
        if out.grad_fn is None:
            grads: list[Any] = [None] * len(params)
        else:
            leaves = [p for _, p in params]
            grads = list(torch.autograd.grad(out, leaves, do.to(out.dtype), allow_unused=True))
    return _compare(module, part, params, grads, do, gen, (given64, extra64))


def _part(module: Any, part: tuple[str, str] | None) -> Any:
    return module if part is None else getattr(module, part[0])


def _compare(
    module: Any, part: Any, params: list, grads: list, do: Any, gen: Any, inputs: tuple
) -> list[Slope] | str:
    """Each parameter's gradient along a direction of its own against the central difference
    of a float64 copy of the layer along it."""
    import torch  # pyright: ignore[reportMissingImports]

    try:
        twin = copy.deepcopy(module).double()
    except Exception as exc:  # a module that cannot be copied: said, not fatal
        return f"the layer could not be copied to float64: {summarize(exc)}"
    held = dict(twin.named_parameters())

    def loss() -> float:
        return float((_first(_part(twin, part)(*inputs[0], **inputs[1])).double() * do).sum())

    slopes = []
    with torch.no_grad():
        for (name, p), g in zip(params, grads, strict=True):
            u = torch.randn(p.shape, generator=gen, dtype=torch.float64)
            u /= u.norm()
            w = held[name]
            base = w.detach().clone()
            try:
                near, wide = (_difference(w, base, u, h, loss) for h in (STEP, 2 * STEP))
            except Exception as exc:
                return f"the layer does not run in float64: {summarize(exc)}"
            finally:
                w.copy_(base)
            slopes.append(_slope(name, g, u, near, wide))
    return [s for s in slopes if np.isfinite(s.want)]


def _slope(name: str, g: Any, u: Any, near: float, wide: float) -> Slope:
    """The gradient `g` along u against the Richardson-extrapolated difference."""
    import torch  # pyright: ignore[reportMissingImports]

    gd = torch.zeros_like(u) if g is None else g.detach().double()
    got = float((gd * u).sum())
    want = (4 * near - wide) / 3
    size = float(gd.norm()) + abs(want)
    none = g is None or not bool(gd.any())
    return Slope(name, got, want, size, none, abs(near - wide) + 1e-12)


def _difference(w: Any, base: Any, u: Any, h: float, loss: Any) -> float:
    """(L(w + h u) - L(w - h u)) / 2h."""
    w.copy_(base + h * u)
    up = loss()
    w.copy_(base - h * u)
    return (up - loss()) / (2 * h)


def _repro(text: LayerText, param: str, probe: tuple[int, int]) -> str:
    """The parameter's gradient along one direction, and the float64 forward's derivative."""
    n, seed = probe
    name = text.name
    lines = [*text._head(), text._x(n, seed), "out = y(x)"]
    lines += [
        repro.drawn(FRAMEWORKS["torch"], "do", ("out.shape",), 1, "float64"),
        "if out.requires_grad:  # else no weight gets a gradient",
        "    out.backward(do.to(out.dtype))",
        f'w = dict({name}.named_parameters())["{param}"]',
        "u = torch.randn(w.shape, dtype=torch.float64)",
        "u /= u.norm()  # one direction",
        "got = 0.0 if w.grad is None else float((w.grad.double() * u).sum())",
        "import copy  # the derivative along u from the forward alone, in float64",
        f"{name} = copy.deepcopy({name}).double()",
        f'w = dict({name}.named_parameters())["{param}"]',
        "with torch.no_grad():",
        "    w += 0.05 * u",
        "    up = float((y(x.double()).double() * do).sum())",
        "    w -= 0.1 * u",
        "    down = float((y(x.double()).double() * do).sum())",
        "print(got - (up - down) / 0.1)  # should be about 0: the backward along u, less the "
        "forward's",
    ]
    return "\n".join(lines)


# -- the attention core's own backward ----------------------------------------------------------

CORE_SLICES = 4  # (batch, head) slices of the core's inputs compared


def _core_bug(module: Any, given: list, extra: dict, lp: Any) -> tuple[str, str] | None:
    """On the worker thread: when the layer's attention is a custom autograd.Function (where a
    hand-written backward lives), its dq, dk, dv on the q, k, v the layer gives it, against the
    float64 reference and each known backward bug (backward.py). The bug's id and what was
    found when one matches on every slice; None when the core is right or is not such a
    Function."""
    import torch  # pyright: ignore[reportMissingImports]

    call = _core_call(module, given, extra)
    if call is None:
        return None
    fn, args, kwargs = call
    leaves = [t.detach().clone().requires_grad_(True) for t in args[:3]]
    with torch.enable_grad():
        out = _first(fn(*leaves, *args[3:], **kwargs))
        if not isinstance(out, torch.Tensor) or out.grad_fn is None:
            return None
        gen = torch.Generator().manual_seed(SEED)
        do = torch.randn(out.shape, generator=gen, dtype=torch.float64)
        grads = torch.autograd.grad(out, leaves, do.to(out.dtype), allow_unused=True)
    if any(g is None for g in grads) or out.dim() < 2 or leaves[0].shape[-2] != out.shape[-2]:
        return None
    n, d = leaves[0].shape[-2:]
    flat = [t.detach().double().reshape(-1, n, t.shape[-1]).numpy() for t in (*leaves, out, do)]
    got = [g.detach().double().reshape(-1, n, g.shape[-1]).numpy() for g in grads]
    slices = range(min(CORE_SLICES, flat[0].shape[0]))
    scale = float(d) ** -0.5
    keep = _core_mask(flat, slices, scale, lp.eps)
    if keep is False:
        return None  # not scaled dot-product attention as modelled: say nothing more

    def matches(how: bw.Backward) -> bool:
        for i in slices:
            q, k, v, _, dout = (a[i] for a in flat)
            want = bw.grads(q, k, v, dout, scale, keep, how)
            low = bw.grads(q, k, v, dout, scale, keep, how, lp.dtype)
            mine: dict[str, Any] = {name: g[i] for name, g in zip(bw.NAMES, got, strict=True)}
            if not bw.compare(mine, want, low, lp).ok:
                return False
        return True

    if matches(bw.RIGHT):
        return None
    name = getattr(getattr(fn, "__self__", None), "__name__", "the attention core")
    for bug in bw.BUGS:
        if matches(bug):
            return str(bug.id), f"its attention core `{name}` has the known bug: {bug.detail}"
    return None


def _core_mask(flat: list, slices: range, scale: float, eps: float) -> Any:
    """None (no mask) or the causal keep-mask under which the core's output is attention with
    the 1/sqrt(d) scale; False when it is neither."""
    n = flat[0].shape[1]
    for keep in (None, np.tril(np.ones((n, n), dtype=bool))):
        ok = True
        for i in slices:
            q, k, v, out, _ = (a[i] for a in flat)
            s = scale * (q @ k.T)
            if keep is not None:
                s = np.where(keep, s, -np.inf)
            want = softmax(s) @ v
            ok = ok and bool(np.abs(out - want).max() <= 1e3 * eps * max(1.0, np.abs(want).max()))
        if ok:
            return keep
    return False


def _core_call(module: Any, given: list, extra: dict) -> tuple[Any, tuple, dict] | None:
    """The first call of a custom autograd.Function defined beside the layer, with its first
    three arguments tensors of one length: its `apply` and the arguments, caught while the
    layer runs once."""
    import sys

    import torch  # pyright: ignore[reportMissingImports]

    names = {type(m).__module__ for m in module.modules()}
    found = [
        value
        for name in names
        if name in sys.modules and not name.startswith("torch")
        for value in vars(sys.modules[name]).values()
        if isinstance(value, type)
        and issubclass(value, torch.autograd.Function)
        and value.__module__ == name
    ]
    calls: list[tuple[Any, tuple, dict]] = []
    held = {f: vars(f).get("apply") for f in found}
    for f in found:

        def caught(*args: Any, _apply: Any = f.apply, **kwargs: Any) -> Any:
            tensors = [a for a in args[:3] if isinstance(a, torch.Tensor)]
            if not calls and len(tensors) == 3 and len({t.shape[-2] for t in tensors}) == 1:
                calls.append((_apply, args, kwargs))
            return _apply(*args, **kwargs)

        f.apply = caught  # pyright: ignore[reportAttributeAccessIssue]
    try:
        with torch.no_grad():
            module(*given, **extra)
    finally:
        for f, apply in held.items():
            if apply is None:
                del f.apply
            else:
                f.apply = apply  # pyright: ignore[reportAttributeAccessIssue]
    return calls[0] if calls else None
