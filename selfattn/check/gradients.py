"""The gradient check of a torch kernel: dq, dk, dv on the forward's probes against the float64
reference's gradients (backward.py), with and without the causal mask, the known backward bugs
named, a leak of gradient into the future found by its effect, and the dropout mask compared
between the forward and the backward."""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from . import backward as bw
from . import repro
from .context import Ctx, Probe
from .frameworks import CallFailed, answered_in, from_layout, to_layout
from .interpret import uses_triton
from .kernel import Kernel
from .reference import Variant, agree, softmax
from .repro import literals, show, tiny
from .runner import Timeout

Array = np.ndarray
Grads = dict[str, Array]
DROP = 0.5  # the dropout probability the mask is compared at
SEED = 1234  # torch.manual_seed before each call of the dropout comparison


def rule(ctx: Ctx) -> None:
    """dq, dk, dv against the reference, when the kernel is torch and its forward (`base`) is
    right (`causal right`: with its causal mask too, then checked with it as well)."""
    kern, rep, forward = ctx.kern, ctx.rep, ctx.facts["base"]
    name = "gradients dq, dk, dv match the float64 reference's"
    if kern.backend.name != "torch":
        return  # nothing autograd can differentiate
    d0 = ctx.probes[0].shape[1]
    if forward is None or forward != kern.reference or bw.scale_of(forward, d0) is None:
        rep.check(name, "skip", "the forward differs from the reference: checked first")
        return
    probes = _one_seed(ctx.probes)
    modes = [False] if not kern.always_causal else []
    modes += [True] if ctx.facts["causal right"] else []
    if not modes:
        rep.check(name, "skip", "the causal forward differs from the reference: checked first")
        return
    first = _grads(kern, probes[0], modes[0])
    if isinstance(first, str):
        longer = _longer(kern, probes, modes[0])
        if longer is None:
            rep.check(name, "skip", first)
            return
        probes = longer
        said = ", ".join(f"{p.shape[0]}x{p.shape[1]}" for p in probes)
        rep.notes.append(
            f"the backward refuses the forward's inputs ({first.removeprefix('the backward ')}); "
            f"its gradients checked on the longer inputs it accepts: n x d = {said}"
        )
    for causal in modes:
        if not _judge(ctx, probes, forward, causal):
            return  # one finding says it; the causal run would repeat it
    if modes[0] is False:
        _strided(ctx, forward, probes[0])
    _dropout(ctx, forward)


GRADIENT_PROBES = 3  # the longest included: a tiled backward shows its tiles on it
# Lengths tried when the backward refuses every forward probe: a backward may want n to be a
# multiple of a block longer than the forward's (Triton's tutorial asserts N_CTX % 128 == 0).
LONGER = (128, 256)


def _one_seed(probes: list[Probe]) -> list[Probe]:
    """One probe per shape, n != d where there are such, the longest three: the second seed
    says nothing new, and these keep the gradient check within the forward check's time."""
    seen: dict[tuple[int, int], Probe] = {}
    for p in probes:
        seen.setdefault(p.shape, p)
    oblong = [p for p in seen.values() if p.shape[0] != p.shape[1]] or list(seen.values())
    return sorted(oblong, key=lambda p: p.shape[0])[-GRADIENT_PROBES:]


def _longer(kern: Kernel, probes: list[Probe], causal: bool) -> list[Probe] | None:
    """Probes of a longer n, at the forward's head sizes, on which the backward runs (the first
    length that does, at most two head sizes), or None."""
    heads = sorted({p.shape[1] for p in probes})[:2]
    for n in LONGER:
        found = []
        for d in heads:
            q, k, v = np.random.default_rng([n, d, 7]).standard_normal((3, n, d))
            p = Probe(q, k, v)
            if not isinstance(_grads(kern, p, causal), str):
                found.append(p)
        if found:
            return found
    return None


STRIDED = (2, 3)  # batch and heads of the strided-heads probe


def _strided(ctx: Ctx, forward: Variant, like: Probe) -> None:
    """dq, dk, dv on batched inputs whose heads are strided as a model hands them over:
    q = x.view(b, n, h, d).transpose(1, 2) is not contiguous, nor is the output a kernel makes
    with torch.empty_like(q), nor dO. A backward that reads one of them as if it were
    contiguous is right on one head and wrong here (FlagAttention's `_bwd_preprocess` before
    its fix, FlagOpen/FlagAttention#1). Only for Triton kernels, which read memory through
    pointers and strides they are handed: torch's own operations cannot get this wrong."""
    kern, rep = ctx.kern, ctx.rep
    batched = any(c.name.startswith("batched ") and c.status == "pass" for c in rep.checks)
    if not uses_triton(kern.runner.fn) or kern.layout not in ("bhnd", "bnhd") or not batched:
        return  # torch ops read strides themselves; a kernel wrong on batches is said already
    name = "gradients on batched inputs with strided heads, as x.view(b, n, h, d).transpose(1, 2)"
    n, d = like.shape
    b, h = STRIDED
    q, k, v, do = np.random.default_rng([n, d, 5]).standard_normal((4, b, h, n, d))
    got = _grads(kern, Probe(q, k, v), False, do, strided=True)
    if isinstance(got, str):
        rep.check(name, "skip", got)
        return
    scale = bw.scale_of(forward, d) or 1.0
    said = f"({b}, {h}, {n}, {d}) tensors, heads strided"
    wrong = _forward_off(got["out"], forward, (q, k, v), kern)
    if wrong is not None:  # the forward itself: its own finding
        detail = (
            f"the output is off by {wrong.err:.3g} (tolerance {wrong.tol:.2g}) on {said}, "
            "though right on one contiguous head: the kernel reads q, k or v as if it were "
            "contiguous"
        )
        rep.check(name, "fail", detail)
        rep.titled("wrong-output", f": {detail}")
        return
    want, low = _per_head(forward, (q, k, v, do), scale, kern)
    gap = bw.compare(got, want, low, kern.lp)
    if gap.ok:
        rep.check(name, "pass", said)
        return
    detail = (
        f"{gap.worst} off by {gap.err:.3g} (tolerance {gap.tol:.2g}) on {said}, though right "
        "on one contiguous head: the backward reads a tensor (o, dO or its own) as if it were "
        "contiguous"
    )
    rep.check(name, "fail", detail)
    repro = _strided_repro(ctx, (b, h, n, d), scale)
    rep.titled("backward-wrong-output", f": {detail}", repro)


def _forward_off(out: Array, forward: Variant, qkv: tuple[Array, ...], kern: Kernel) -> Any:
    """The first (batch, head) slice whose output disagrees with the forward, or None."""
    q, k, v = qkv
    for i in np.ndindex(*q.shape[:2]):
        same = agree(out[i], forward, q[i], k[i], v[i], kern.lp)
        if same is not None and not same.ok:
            return same
    return None


def _per_head(
    forward: Variant, qkvdo: tuple[Array, ...], scale: float, kern: Kernel
) -> tuple[Grads, Grads]:
    """The reference gradients of every (batch, head) slice, exact and rounded as the
    kernel's precision rounds them."""
    q, k, v, do = qkvdo
    b, h, n, d = q.shape
    keep = bw.keep_of(forward, n, False)
    want: Grads = {g: np.empty((b, h, n, d)) for g in bw.NAMES}
    low: Grads = {g: np.empty((b, h, n, d)) for g in bw.NAMES}
    for i in np.ndindex(b, h):
        one = (q[i], k[i], v[i], do[i], scale, keep)
        right, rounded = bw.grads(*one), bw.grads(*one, bw.RIGHT, kern.lp.dtype)
        for g in bw.NAMES:
            want[g][i], low[g][i] = right[g], rounded[g]
    return want, low


def _strided_repro(ctx: Ctx, shape: tuple[int, int, int, int], scale: float) -> str:
    """q, k, v as one projection's (b, n, h, d) output with heads and length swapped in the
    view, the kernel's gradients against float64 scaled_dot_product_attention's."""
    kern = ctx.kern
    b, h, n, d = shape
    saved = kern.layout, kern.back
    kern.layout, kern.back = "nd", ""  # the call on the 4-D tensors as they are
    try:
        call = repro.call_text(kern, False)
    finally:
        kern.layout, kern.back = saved
    # memory (b, n, h, d) for a (b, h, n, d) kernel, (b, h, n, d) for a (b, n, h, d) one
    memory = (b, h, n, d) if saved[0] == "bnhd" else (b, n, h, d)
    to_sdpa = "" if saved[0] == "bnhd" else ".transpose(2, 3)"
    lines = kern.source()
    return "\n".join(
        [
            *lines,
            "torch.manual_seed(0)",
            f"x = torch.randn(3, {', '.join(map(str, memory))}, dtype=torch.{kern.backend.dtype},"
            " requires_grad=True)",
            "q, k, v = x.transpose(2, 3)  # strided views, as a model's projection hands them",
            f"out = {call}",
            "do = torch.randn_like(out)",
            "out.backward(do)",
            "x64 = x.detach().double().requires_grad_(True)",
            "ref = torch.nn.functional.scaled_dot_product_attention(",
            f"    *x64{to_sdpa}, scale={float(scale)!r}",
            ")",
            f"ref.backward(do.double(){'.transpose(1, 2)' if not to_sdpa else ''})",
            "print((x.grad.double() - x64.grad).abs().amax(dim=(1, 2, 3, 4)))  # dq, dk, dv: ~0",
        ]
    )


def _upstream(p: Probe) -> Array:
    """dO for a probe: standard normal, its own seed."""
    n, d = p.shape
    return np.random.default_rng([n, d, 33]).standard_normal((n, p.v.shape[1]))


def _judge(ctx: Ctx, probes: list[Probe], forward: Variant, causal: bool) -> bool:
    """Compare on every probe; name the bug on a mismatch. Whether the gradients were right."""
    kern, rep = ctx.kern, ctx.rep
    how = "causal" if causal else "no mask"
    name = f"gradients dq, dk, dv match the float64 reference's ({how})"
    runs: list[tuple[Probe, Array, Grads]] = []
    for p in probes:
        do = _upstream(p)
        got = _grads(kern, p, causal, do)
        if not isinstance(got, str):
            runs.append((p, do, got))
    if not runs:
        rep.check(name, "skip", "the backward failed on every input")
        return True
    worst = _first_gap(kern, runs, forward, causal, bw.RIGHT)
    used = ", ".join(f"{p.shape[0]}x{p.shape[1]}" for p, _, _ in runs)
    if worst is None:
        rep.check(name, "pass", f"{len(runs)} inputs: n x d = {used}")
        return True
    hit = next(
        (b for b in bw.BUGS if _first_gap(kern, runs, forward, causal, b) is None),
        None,
    )
    p, gap = worst
    detail = (
        f"{gap.worst} off by {gap.err:.3g} (tolerance {gap.tol:.2g}) on n x d = "
        f"{p.shape[0]}x{p.shape[1]}"
    )
    if hit is not None:
        id_ = hit.id or "backward-wrong-output"
        rep.check(name, "fail", f"matches the known bug: {hit.detail}")
        rep.titled(id_, f" ({how}): {hit.detail}", _repro(ctx, forward, causal))
        return False
    leak = _future_gradient(kern, runs) if causal else ""
    id_ = "backward-causal-leak" if leak else "backward-wrong-output"
    rep.check(name, "fail", leak or detail)
    rep.titled(id_, f" ({how}): {leak or detail}", _repro(ctx, forward, causal))
    return False


def _first_gap(
    kern: Kernel,
    runs: list[tuple[Probe, Array, Grads]],
    forward: Variant,
    causal: bool,
    how: bw.Backward,
) -> tuple[Probe, bw.Gap] | None:
    """The first input on which the gradients disagree with `how`, or None."""
    for p, do, got in runs:
        gap = _gap(kern, p, do, got, forward, causal, how)[0]
        if not gap.ok:
            return p, gap
    return None


def _gap(
    kern: Kernel,
    p: Probe,
    do: Array,
    got: Grads,
    forward: Variant,
    causal: bool,
    how: bw.Backward,
) -> tuple[bw.Gap, Grads]:
    """How the gradients compare with those `how` computes, and those gradients."""
    n, d = p.shape
    scale = bw.scale_of(forward, d) or 1.0
    keep = bw.keep_of(forward, n, causal)
    want = bw.grads(p.q, p.k, p.v, do, scale, keep, how)
    low = bw.grads(p.q, p.k, p.v, do, scale, keep, how, kern.lp.dtype)
    return bw.compare(got, want, low, kern.lp), want


def _future_gradient(kern: Kernel, runs: list[tuple[Probe, Array, Grads]]) -> str:
    """With dO zero after row i, no key or value after i may get gradient: say where one did."""
    for p, do, _ in runs:
        n = p.shape[0]
        i = n // 2
        cut = do.copy()
        cut[i + 1 :] = 0.0
        got = _grads(kern, p, True, cut)
        if isinstance(got, str):
            continue
        scale = float(np.max(np.abs(got["dv"][: i + 1]))) or 1.0
        moved = max(float(np.max(np.abs(got[g][i + 1 :]))) for g in ("dk", "dv"))
        if moved > 1e3 * kern.lp.eps * scale:
            return (
                f"with dO zero after row {i}, keys and values after {i} still get gradient "
                f"up to {moved:.3g} (n x d = {n}x{p.shape[1]})"
            )
    return ""


def _grads(
    kern: Kernel,
    p: Probe,
    causal: bool,
    do: Array | None = None,
    args: dict[str, Any] | None = None,
    seed: int | None = None,
    strided: bool = False,
) -> Grads | str:
    """dq, dk, dv of sum(dO * out) as float64 (n, d) (or (b, h, n, d) for batched probes), or
    why they could not be had; `strided`: q, k, v handed over with axes 1 and 2 swapped in
    memory."""
    do = _upstream(p) if do is None else do
    with kern.passing(**(args or {})):
        call_args, kwargs, leaves = kern.arguments(p.q, p.k, p.v, causal)
    shape = (*p.q.shape[:-1], p.v.shape[-1])
    try:
        got = kern.runner.call_other(
            _differentiate,
            kern.runner.fn,
            call_args,
            kwargs,
            leaves,
            do,
            kern.layout,
            shape,
            seed,
            strided,
        )
    except CallFailed as exc:
        return f"the backward failed: {exc}"
    except Timeout as exc:  # the forward was checked: a slow backward is said, not fatal
        return f"the backward is too slow: {exc}"
    if isinstance(got, str):
        return got
    return {name: from_layout(g, kern.layout, p.q.shape) for name, g in got.items()}


def _differentiate(
    fn: Any,
    args: list,
    kwargs: dict,
    leaves: tuple[Any, Any, Any],
    do: Array,
    layout: str,
    shape: tuple[int, ...],
    seed: int | None,
    strided: bool = False,
) -> dict[str, Array] | str:
    """On the worker thread: the call, then backward with dO in the output's own layout."""
    import torch  # pyright: ignore[reportMissingImports]

    wrt, args, kwargs = _leaves(leaves, args, kwargs, strided)
    if seed is not None:
        torch.manual_seed(seed)
    out = fn(*args, **kwargs)
    out = out[0] if isinstance(out, tuple | list) else out
    if not isinstance(out, torch.Tensor) or out.grad_fn is None:
        return "the output does not depend on q, k, v through autograd"
    answer = answered_in(tuple(out.shape), layout, shape)
    if answer is None:
        return f"returned shape {tuple(out.shape)}"
    # dO laid out as the output is, strides and all, as a loss's gradient comes: a backward
    # may assert it (Triton's tutorial: q.stride() == ... == o.stride() == do.stride())
    if strided and answer != layout:
        return f"returned shape {tuple(out.shape)} for batched input"
    given = torch.empty_like(out).copy_(torch.from_numpy(_in_answer(do, answer)))
    grads = torch.autograd.grad(out, wrt, given, allow_unused=True)
    if any(g is None for g in grads):
        return "the output does not depend on every one of q, k, v through autograd"
    return _as_arrays(grads, out, strided)


def _leaves(
    leaves: tuple[Any, Any, Any], args: list, kwargs: dict, strided: bool
) -> tuple[tuple[Any, ...], list, dict]:
    """What gradients are taken with respect to, made to want them, and the arguments that
    hand them over: the leaves themselves, or (`strided`) the same values with axes 1 and 2
    swapped in memory, handed over as views, as a model's q.view(b, n, h, d).transpose(1, 2)."""
    wrt = leaves
    if strided:  # the leaves are the bases
        wrt = tuple(t.detach().transpose(1, 2).contiguous() for t in leaves)
    for t in wrt:
        t.requires_grad_(True)
    if strided:
        views = {id(t): w.transpose(1, 2) for t, w in zip(leaves, wrt, strict=True)}
        args = [views.get(id(a), a) for a in args]
        kwargs = {key: views.get(id(a), a) for key, a in kwargs.items()}
    return wrt, args, kwargs


def _as_arrays(grads: tuple, out: Any, strided: bool) -> dict[str, Array]:
    """dq, dk, dv as float64 arrays in the leaves' layout; strided, the output too (a forward
    that ignores strides is its own finding)."""
    import torch  # pyright: ignore[reportMissingImports]

    if strided:
        grads = tuple(g.transpose(1, 2) for g in grads)
    got = {n: g.detach().to(torch.float64).numpy() for n, g in zip(bw.NAMES, grads, strict=True)}
    if strided:
        got["out"] = out.detach().to(torch.float64).numpy()
    return got


def _in_answer(do: Array, answer: str) -> Array:
    """dO (n, d_v) shaped as the kernel's output came: its layout, merged heads, or batched."""
    if answer in ("merged", "batch"):  # one sequence, one head: (1, n, d_v)
        return np.ascontiguousarray(do[None])
    return np.ascontiguousarray(to_layout(do, answer))


# -- dropout ---------------------------------------------------------------------------------


def _dropout_param(kern: Kernel) -> str | None:
    """A dropout probability the kernel takes (`dropout_p=0.0`), by name."""
    try:
        params = inspect.signature(kern.runner.fn).parameters.values()
    except (TypeError, ValueError):
        return None
    return next(
        (
            p.name
            for p in params
            if "drop" in p.name.lower()
            and "mask" not in p.name.lower()
            and isinstance(p.default, int | float)
            and not isinstance(p.default, bool)
        ),
        None,
    )


def _dropout(ctx: Ctx, forward: Variant) -> None:
    """With dropout on and one seed, the backward must use the forward's mask.

    Under torch.manual_seed the forward draws the same mask on every call, so the weights it
    used are read with v = identity; the gradients are then those of these weights."""
    kern, rep = ctx.kern, ctx.rep
    param = _dropout_param(kern)
    if param is None:
        return
    name = f"dropout (`{param}={DROP}`): the backward uses the forward's mask"
    n, d = 6, 8
    q, k, v = np.random.default_rng(21).standard_normal((3, n, d))
    p = Probe(q, k, v)
    on = {param: DROP}
    try:
        w = _seeded(kern, q, k, np.eye(n, d), on)[:, :n]
        out = _seeded(kern, q, k, v, on)
    except CallFailed as exc:
        rep.check(name, "skip", str(exc))
        return
    if not np.allclose(out, w @ v, atol=1e-5) or (w != 0).all():
        rep.check(name, "skip", "the mask is not the same on every call under one seed")
        return
    do = _upstream(p)
    got = _grads(kern, p, False, do, on, SEED)
    if isinstance(got, str):
        rep.check(name, "skip", got)
        return
    scale = bw.scale_of(forward, d) or 1.0
    want = _dropped(p, do, w, scale)
    gap = bw.compare(got, want, want, kern.lp)
    if gap.ok:
        rep.check(name, "pass", f"n x d = {n}x{d}")
        return
    detail = f"{gap.worst} off by {gap.err:.3g} from the gradients of the forward's own mask"
    rep.check(name, "fail", detail)
    rep.titled("backward-dropout-mismatch", f": {detail}", _dropout_repro(kern, param))


def _seeded(kern: Kernel, q: Array, k: Array, v: Array, args: dict[str, Any]) -> Array:
    fn = kern.runner.fn
    kern.runner.fn = _under_seed(fn)
    try:
        with kern.passing(**args):
            return kern.call(q, k, v)
    finally:
        kern.runner.fn = fn


def _under_seed(fn: Any) -> Any:
    def seeded(*args: Any, **kwargs: Any) -> Any:
        import torch  # pyright: ignore[reportMissingImports]

        torch.manual_seed(SEED)
        return fn(*args, **kwargs)

    return seeded


def _dropped(p: Probe, do: Array, w: Array, scale: float) -> Grads:
    """The gradients of out = W v with W = P * M / (1 - p), M the forward's mask (W read off)."""
    s = scale * (p.q @ p.k.T)
    pr = softmax(s)
    kept = w / pr  # M / (1 - p)
    dp = (do @ p.v.T) * kept
    ds = pr * (dp - (pr * dp).sum(axis=-1, keepdims=True))
    return {"dq": scale * ds @ p.k, "dk": scale * ds.T @ p.q, "dv": w.T @ do}


# -- reproductions ---------------------------------------------------------------------------


def _repro(ctx: Ctx, forward: Variant, causal: bool) -> str:
    """Small inputs on which a gradient differs from the reference's, with both printed."""
    kern = ctx.kern
    # the smallest first; then past a tile of 8 or 16, where a tiled backward's loop bounds
    # show (Triton's tutorial walked only the causal tiles, causal or not)
    for n, d in ((3, 2), (4, 3), (5, 4), (6, 5), (7, 5), (12, 3), (20, 3)):
        q, k, v = tiny(n, d, 0)
        do = tiny(n, d, 1)[2]
        p = Probe(q, k, v)
        got = _grads(kern, p, causal, do)
        if isinstance(got, str):
            continue
        gap, want = _gap(kern, p, do, got, forward, causal, bw.RIGHT)
        if gap.ok:
            continue
        g = gap.worst[1]  # q, k or v
        lines = [*kern.source(), *literals(kern, q=q, k=k, v=v, do=do)]
        lines += ["for t in (q, k, v):", "    t.requires_grad_(True)"]
        lines += repro.mask_lines(kern, n, causal)
        lines += [f"out = {repro.call_text(kern, causal)}", "out.backward(do)", f"print({g}.grad)"]
        lines += [f"# expected d{g} ({forward.detail}, float64):", *show(want[gap.worst])]
        return "\n".join([*lines, "# got:", *show(got[gap.worst])])
    return ""


def _dropout_repro(kern: Kernel, param: str) -> str:
    """dv against the weights the forward used, read under the same seed."""
    q, k, v = tiny(4, 5, 0)
    do = tiny(4, 5, 1)[2]
    with kern.passing(**{param: DROP}):
        call, read = repro.call_text(kern, False), repro.call_text(kern, False, v="eye")
    lines = [*kern.source(), *literals(kern, q=q, k=k, v=v, do=do), "v.requires_grad_(True)"]
    return "\n".join(
        [
            *lines,
            f"torch.manual_seed({SEED})",
            f"out = {call}",
            "out.backward(do)",
            "eye = torch.eye(4, 5, dtype=v.dtype)",
            f"torch.manual_seed({SEED})  # the same seed: the forward's mask, read with v = eye",
            f"w = {read}[:, :4].detach()",
            "print(v.grad - w.T @ do)  # dv of out = w @ v: should be 0",
        ]
    )
