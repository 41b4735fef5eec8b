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

import inspect
import math
import sys
from dataclasses import replace
from typing import Any

import numpy as np

from .defaults import set_by_defaults
from .frameworks import CallFailed
from .names import named
from .projections import Projections, held_norm, slipped_widths, split_maps
from .runner import Runner
from .signature import is_mask_name
from .watch import Seen, keywords_of, number, params_of, positional_of, watch


def widths(module: Any) -> list[int]:
    """The widths C x may have: the input sides of the layer's 2-D weights (and of its 1 x 1
    convolutions', and of Keras's (C, heads, d) and (heads, d, C) kernels), most common first."""
    mats = [
        p.flatten(1) if p.ndim > 2 and all(s == 1 for s in p.shape[2:]) else p
        for p in module.parameters()
    ]
    sides = [p.shape[i] for p in mats if p.ndim == 2 for i in (1, 0)]
    sides += [p.shape[i] for p in mats if p.ndim == 3 for i in (0, -1)]
    return sorted(set(sides), key=lambda c: -sides.count(c))


def observe(
    module: Any, runner: Runner, width: int, given: dict[str, Any] | None = None
) -> Seen | None:
    """What the layer computes on a float32 x of shape (1, 5, width), given as few times as
    it takes (once, or as (x, context) or (q, k, v)), with the caller's numbers `given` (its
    `--arg scale=…`) as every later call has them; None if it fails every way."""
    import torch  # pyright: ignore[reportMissingImports]

    x = torch.randn(1, 5, width, generator=torch.Generator().manual_seed(0))
    # x as a sequence, else as an image, n x 1 channels last (Segment Anything) or 1 x n
    # channels first (a U-Net's attention over 1 x 1 convolutions, Apple's ANE layers), each
    # given as many times as the layer takes it
    layouts = [x, x[:, :, None], x.transpose(1, 2)[:, :, None].contiguous()]
    for shape, times in ((g, t) for g in layouts for t in ways(module)):
        try:
            seen = runner.call_other(watch, module, shape, times, given, n=x.shape[1])
        except CallFailed:
            continue
        if not isinstance(seen, Seen) or (seen.heads and not seen.maps_in):
            return None
        seen.image = shape.ndim == 4 and shape.shape[-1] == width
        seen.channels_first = shape.ndim == 4 and not seen.image
        return seen
    return None


def _order(roles: list[frozenset[int]]) -> list[int]:
    """Which of three maps in makes q, k and v: as the products used them when each came from
    one map of its own, else the order they were applied in."""
    picked = [next(iter(r)) for r in roles if len(r) == 1]
    return picked if len(picked) == 3 and sorted(picked) == [0, 1, 2] else [0, 1, 2]


def ways(module: Any) -> list[int]:
    """How many times x may be given: never in place of a mask (`forward(x, attn_mask)`)."""
    names = ([p.name for p in positional_of(module)] or keywords_of(module))[:3]
    ways = [
        t for t in (1, 2, 3) if t <= max(len(names), 1) and not any(map(is_mask_name, names[1:t]))
    ]
    # (query, key, value): x as all three first, as nn.MultiheadAttention is used for
    # self-attention; ESM's, with self_attention=True, also runs on the query alone
    by_name = names[:1] and names[0].lower() in named("q")
    return sorted(ways, key=lambda t: t != 3) if by_name else ways


def projections(seen: Seen) -> Projections | None:
    """The layer's projections as the run showed them: one fused map (q, k, v side by side),
    q and a fused k, v, or three maps in the order the layer applied them."""
    order = _order(seen.roles) if len(seen.maps_in) == 3 else range(len(seen.maps_in))
    labels = ", ".join(seen.maps_in[i][0] for i in order)
    maps = [seen.maps_in[i][1] for i in order]
    fused = maps[0] if len(maps) == 1 else None
    qkv = split_maps(list(maps))
    if qkv is None or not seen.heads:  # no softmax seen: F.multi_head_attention_forward's
        return None
    q, k, v = qkv
    inner = q.w.shape[1]
    size = inner // seen.heads
    # k and v may have fewer heads, each serving a group of q heads (keras-hub's Llama)
    if inner % seen.heads or k.w.shape != v.w.shape or k.w.shape[1] % size:
        return None
    kv_heads = k.w.shape[1] // size
    out = seen.map_out[1] if seen.map_out and seen.map_out[1].w.shape[0] == inner else None
    labels += f", {seen.map_out[0]}" if out is not None and seen.map_out else ""
    return Projections(
        q,
        k,
        v,
        out,
        seen.heads,
        labels,
        inputs=seen.inputs,
        fused=fused,
        cosine=seen.cosine,
        image=seen.image,
        channels_first=seen.channels_first,
        norm=seen.norm,
        kv_heads=0 if kv_heads == seen.heads else kv_heads,
    )


def _biases_run(proj: Projections, run: Projections | None) -> Projections:
    """The layer's maps with the biases the run added: Swin v2 keeps `q_bias` and `v_bias`
    apart from its `qkv` Linear and passes F.linear their concatenation, so the bias read by
    name (none) is not the one applied. Taken only when the weights are the same."""
    if run is None or proj.fused is None or run.fused is None:
        return proj
    named, ran = proj.fused, run.fused
    if named.w.shape != ran.w.shape or not np.array_equal(named.w, ran.w):
        return proj
    if np.array_equal(named.b, ran.b):
        return proj
    return replace(proj, fused=ran).rewired(proj.order, proj.per_head, proj.innermost)


def read_layer(
    module: Any, runner: Runner, proj: Projections | None, args: dict[str, Any]
) -> Projections | None:
    """The projections of a torch layer, as found by name (`proj`) and as seen running: a layer
    whose maps are under names never seen is read from the run; the head count and the map
    out are taken from the run when the names gave other ones. The caller's numbers among
    `args` are passed to the run, and a scale among them is the layer's own."""
    torch = sys.modules.get("torch")
    if torch is None or not isinstance(module, torch.nn.Module):
        return proj
    given = {n: v for n, v in args.items() if number(v)}
    for width in [proj.width] if proj is not None else widths(module)[:3]:
        seen = observe(module, runner, width, given)
        if seen is None or not (seen.handed or seen.heads):
            # it ran and no softmax did: Performer's random features, linear attention
            proj = proj if seen is None or proj is None else replace(proj, axis="none")
            continue
        if proj is not None:
            return _as_run(module, proj, seen, given)
        found = projections(seen)
        if found is None:
            return None
        norm = found.norm or held_norm(module, found.width)  # on x, or after the residual
        return replace(_own_scale(module, found, seen, given), axis=seen.axis, norm=norm)
    return proj


def _as_run(module: Any, proj: Projections, seen: Seen, given: dict[str, Any]) -> Projections:
    """The projections found by name, with what the run showed where it differs."""
    if seen.handed:  # nothing inside F.multi_head_attention_forward is seen: as nn's layer
        own = not proj.holder and getattr(module, "batch_first", False) is not True
        return replace(proj, inputs=seen.inputs, time_first=own or proj.time_first)
    keywords = tuple(keywords_of(module)[: seen.inputs])  # labml.ai's (*, query, key, value)
    proj = replace(proj, keywords=keywords, time_first=proj.time_first or seen.time_first)
    inner = proj.q.w.shape[1]
    grouped = proj.kv_heads not in (0, proj.heads)
    if seen.heads != proj.heads and inner % seen.heads == 0 and not grouped:
        proj = replace(proj, heads=seen.heads, kv_heads=0)
    proj = replace(proj, cosine=seen.cosine, image=seen.image, channels_first=seen.channels_first)
    proj = replace(proj, norm=proj.norm or seen.norm)  # diffusers' `group_norm`, run on x
    proj = _biases_run(proj, projections(seen))
    proj = replace(_own_scale(module, proj, seen, given), axis=seen.axis)
    if seen.inputs != proj.inputs:  # torchtune's (x, y=None); in_proj_weight, x once
        proj = replace(proj, inputs=seen.inputs)
    if proj.out is None and seen.map_out is not None and seen.map_out[1].w.shape[0] == inner:
        proj = replace(proj, out=seen.map_out[1], names=f"{proj.names}, {seen.map_out[0]}")
    return proj


def masks_seen(module: Any, runner: Runner, proj: Projections, given: dict[str, Any]) -> list[str]:
    """The arguments of the layer's forward, under any name, that go into its scores before
    the softmax when handed a mask (additive zeros, else boolean True), so that the causal mask
    a model would hand in is found where its name does not say so."""
    import torch  # pyright: ignore[reportMissingImports]

    if proj.image or proj.channels_first or not isinstance(module, torch.nn.Module):
        return []
    x = torch.randn(1, 5, proj.width, generator=torch.Generator().manual_seed(0))
    markers = (torch.zeros(1, 1, 5, 5), torch.ones(1, 1, 5, 5, dtype=torch.bool))
    found = []
    for name in _open(module)[proj.inputs :]:
        if name in given:
            continue
        for marker in markers:
            try:
                seen = runner.call_other(watch, module, x, proj.inputs, {name: marker})
            except CallFailed:
                continue
            if isinstance(seen, Seen) and seen.marked:
                found.append(name)
                break
    return found


def _open(module: Any) -> list[str]:
    """The forward's parameters that take None or nothing by default: where a mask may go."""
    kinds = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    return [
        p.name for p in params_of(module) if p.kind not in kinds and p.default in (None, p.empty)
    ]


def _own_scale(module: Any, proj: Projections, seen: Seen, given: dict[str, Any]) -> Projections:
    """The layer with the score scale it ran with, when that is no power of the head size d
    (1/sqrt(d) the right one; 1, 1/d, sqrt(d), d**-0.25 for q alone, the known slips) nor of
    the width C or the length n, nor 1/sqrt of any other width of the layer (`slipped_widths`:
    the heads, C / heads), and one of its attributes, under whatever name, holds it: a scale
    chosen when it was built, not a slip, unless a twin built with the constructor's defaults
    holds it too (`set_by_defaults`): then it is kept as `set_scale`, a candidate scale-wrong.
    A scale the caller passed (`given`, `--arg scale=0.3`) is the layer's own, whatever it is:
    the one it ran with, or under a scale's name, the one it must run with."""
    passed = _passed_scale(proj, seen, given)
    if passed is not None:
        return passed
    scale, d = seen.scale, proj.head_size
    if scale is None or scale <= 0 or seen.cosine:
        return proj
    powers = (-2, -1.5, -1, -0.75, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1)
    slips = [b**g for b in (d, proj.width, 5) for g in powers]  # observe's n is 5
    slips += [w**-0.5 for w, _ in slipped_widths(proj)]
    if any(math.isclose(scale, s, rel_tol=1e-3) for s in slips):
        return proj
    holder = next((n for n, v in _numbers(module) if math.isclose(v, scale, rel_tol=1e-3)), None)
    if holder is None:
        return proj
    if set_by_defaults(module, holder, scale, proj.width):
        return replace(proj, set_scale=scale, scaled_by=holder)
    return replace(proj, scale=scale, scaled_by=holder)


def _passed_scale(proj: Projections, seen: Seen, given: dict[str, Any]) -> Projections | None:
    """The layer with the scale the caller passed, under a scale's name or equal to the one
    it ran with; None when none was passed."""
    said = [n for n in named("scale") if n in given] + [
        n for n, v in given.items() if seen.scale and math.isclose(v, seen.scale, rel_tol=1e-3)
    ]
    if not said or seen.cosine:
        return None
    return replace(proj, scale=given[said[0]], scaled_by=said[0], scale_passed=True)


def _numbers(module: Any) -> list[tuple[str, float]]:
    """Every number the layer and its submodules hold as a plain attribute or a one-value
    tensor, by dotted name."""
    found = []
    for owner, child in module.named_modules():
        for name, value in [*vars(child).items(), *child._buffers.items()]:
            if number(value) and not isinstance(value, int):
                found.append((f"{owner}.{name}".lstrip("."), float(value)))
    return found
