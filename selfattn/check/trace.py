"""Watching a torch layer run once: the maps from x to q, k, v, the map out and the head count,
read from the calls it makes, whatever its attributes are named.

torch.overrides.TorchFunctionMode sees every torch function and Tensor method the layer calls
(F.linear, addmm, softmax, scaled_dot_product_attention, view), with the very tensors it
passes: a map in is a weight applied to x (or to x normalised, or viewed), the map out is the
last weight applied after the softmax, and the heads are the axis the scores carry them on.
A dispatch-mode trace would see aten calls after the Python names are gone, and torch.fx
cannot trace a layer whose forward branches on its input; the function mode keeps the calls as
the layer wrote them and runs whatever Python the forward holds.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field, replace
from typing import Any

from .probe import CallFailed, Runner
from .projections import Affine, Projections, _read, _split3

# calls that pass x on unchanged in meaning: the maps in may be applied to what they return
PASS_ON = {"view", "reshape", "contiguous", "layer_norm", "rms_norm", "to", "float", "type_as"}
SOFTMAX = {"softmax", "_softmax", "scaled_dot_product_attention"}


@dataclass
class Seen:
    """What one run of the layer on x showed."""

    maps_in: list[tuple[str, Affine]] = field(default_factory=list)  # in the order applied
    map_out: tuple[str, Affine] | None = None
    heads: int = 0  # 0: no softmax or fused attention was seen
    qkv_args: bool = False  # called as layer(x, x, x), as layer(q, k, v) layers take x


def _name(func: Any) -> str:
    return getattr(func, "__name__", "")


def watch(module: Any, x: Any, times: int) -> Seen:
    """Run `module(x)` (`times` 3: `module(x, x, x)`) once and read what it computed; call on
    the worker thread."""
    import torch  # pyright: ignore[reportMissingImports]
    from torch.overrides import TorchFunctionMode  # pyright: ignore[reportMissingImports]

    names = {id(p): n for n, p in module.named_parameters()}
    seen, xs, after = Seen(qkv_args=times == 3), {id(x)}, [False]

    class Record(TorchFunctionMode):
        def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None):
            out = func(*args, **(kwargs or {}))
            name = _name(func)
            first = args[0] if args else None
            if name in PASS_ON and id(first) in xs and isinstance(out, torch.Tensor):
                xs.add(id(out))
            elif name in SOFTMAX and isinstance(first, torch.Tensor) and first.ndim >= 3:
                # scores (batch, heads, n, n) or (batch * heads, n, n); q (batch, heads, n, d)
                heads = first.shape[-3] if first.ndim >= 4 else first.shape[0] // len(x)
                seen.heads += int(heads)
                after[0] = True
            elif (found := _weight(name, args, names)) is not None:
                inp, label, affine = found
                if id(inp) in xs and not after[0]:
                    seen.maps_in.append((label, affine))
                elif after[0]:
                    seen.map_out = (label, affine)  # the last one wins
            return out

    with Record(), torch.no_grad():
        module(*[x] * times)
    return seen


def _weight(name: str, args: Any, names: dict[int, str]) -> tuple[Any, str, Affine] | None:
    """(input, parameter name, map) for F.linear(x, w, b) or GPT-2 Conv1D's addmm(b, x, w),
    when w is one of the layer's parameters."""
    if name == "linear" and len(args) >= 2 and id(args[1]) in names:
        bias = args[2] if len(args) > 2 else None
        affine = _read(args[1], bias)
        return (args[0], names[id(args[1])].removesuffix(".weight"), affine) if affine else None
    if name == "addmm" and len(args) >= 3 and id(args[2]) in names:
        affine = _read(args[2], args[0], stored_in_by_out=True)
        return (args[1], names[id(args[2])].removesuffix(".weight"), affine) if affine else None
    return None


def widths(module: Any) -> list[int]:
    """The widths C x may have: the input sides of the layer's 2-D weights, most common first."""
    sides = [p.shape[i] for p in module.parameters() if p.ndim == 2 for i in (1, 0)]
    return sorted(set(sides), key=lambda c: -sides.count(c))


def observe(module: Any, runner: Runner, width: int) -> Seen | None:
    """What the layer computes on a float32 x of shape (1, 5, width), given once or, for a
    layer of (q, k, v), three times; None if it fails."""
    import torch  # pyright: ignore[reportMissingImports]

    x = torch.randn(1, 5, width, generator=torch.Generator().manual_seed(0))
    for times in (1, 3):
        try:
            seen = runner.call_other(watch, module, x, times)
        except CallFailed:
            continue
        return seen if isinstance(seen, Seen) and seen.heads and seen.maps_in else None
    return None


def projections(seen: Seen) -> Projections | None:
    """The layer's projections as the run showed them: one fused map (q, k, v side by side),
    q and a fused k, v, or three maps in the order the layer applied them."""
    labels = ", ".join(label for label, _ in seen.maps_in)
    maps = [a for _, a in seen.maps_in]
    fused = None
    if len(maps) == 1 and maps[0].w.shape[1] % 3 == 0:
        fused = maps[0]
        q, k, v = _split3(fused)
    elif len(maps) == 2 and maps[1].w.shape[1] % 2 == 0:
        q, half = maps[0], maps[1].w.shape[1] // 2
        k, v = maps[1].columns(slice(0, half)), maps[1].columns(slice(half, None))
    elif len(maps) == 3:
        q, k, v = maps
    else:
        return None
    inner = q.w.shape[1]
    if inner % seen.heads or k.w.shape != q.w.shape:
        return None
    out = seen.map_out[1] if seen.map_out and seen.map_out[1].w.shape[0] == inner else None
    labels += f", {seen.map_out[0]}" if out is not None and seen.map_out else ""
    return Projections(q, k, v, out, seen.heads, labels, qkv_args=seen.qkv_args, fused=fused)


def read_layer(module: Any, runner: Runner, proj: Projections | None) -> Projections | None:
    """The projections of a torch layer, as found by name (`proj`) and as seen running: a layer
    whose maps are under names never seen is read from the run; the head count and the map
    out are taken from the run when the names gave other ones."""
    torch = sys.modules.get("torch")
    if torch is None or not isinstance(module, torch.nn.Module):
        return proj
    for width in [proj.width] if proj is not None else widths(module)[:3]:
        seen = observe(module, runner, width)
        if seen is None:
            continue
        if proj is None:
            return projections(seen)
        inner = proj.q.w.shape[1]
        grouped = proj.kv_heads not in (0, proj.heads)
        if seen.heads != proj.heads and inner % seen.heads == 0 and not grouped:
            proj = replace(proj, heads=seen.heads, kv_heads=0)
        if proj.out is None and seen.map_out is not None and seen.map_out[1].w.shape[0] == inner:
            proj = replace(proj, out=seen.map_out[1], names=f"{proj.names}, {seen.map_out[0]}")
        return proj
    return proj
