"""`selfattn check`: probe an attention kernel, layer or model for the bugs that never raise.

from selfattn.check import check
report = check(my_attention)          # a function of (q, k, v[, causal | mask]), any layout
assert report.ok, report              # str(report) is the readable report

The target runs in a child process (contain.py), as `selfattn check` runs it.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import os
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import numpy as np

from . import contain, diagnose, jax_layer, layer_rules, model, restore, rules, runner
from .accepts import learn
from .findings import BY_ID, SPECS, Spec
from .frameworks import LAYOUTS, keras_backend, summarize
from .interpret import interpret_line, interpreted, uses_triton
from .jaxpr import Read, read_jax_layer
from .kernel import Target
from .layout import connect
from .mlx_layer import MlxLayer, MlxText, is_mlx_layer, read_mlx_layer, rope_at_zero
from .names import named
from .projections import Projections, find_projections
from .report import Check, Finding, Report
from .rotary import angles_at_zero
from .runner import Runner, TargetError, Timeout
from .signature import is_mask_name, read_signature
from .trace import masks_seen, read_layer, ways

__all__ = ["BY_ID", "SPECS", "Check", "Finding", "Report", "Spec", "check"]

TIMEOUT = 10.0  # seconds one call may take
BUDGET = 45.0  # seconds the whole check may take: with start-up, under a minute
SLACK = 10.0  # seconds more for the child to start, import and write its report


def check(
    fn: Callable[..., Any],
    *,
    kind: str | None = None,
    timeout: float = TIMEOUT,
    budget: float = BUDGET,
    name: str | None = None,
    import_line: str | None = None,
    layout: str | None = None,
    args: dict[str, Any] | None = None,
    in_process: bool = False,
    memory: int | None = None,
) -> Report:
    """Probe `fn` and return a Report; never raises because of what `fn` does.

    kind: "kernel" (q, k, v[, causal | mask]), "layer" (hidden states x -> x, through its own
    q, k, v projections) or "model" (token ids -> vectors); by default read from the
    signature and the module's attributes, else kernel and model tried in that order.
    `timeout` bounds each call and `budget` the whole check; a call that does not return in
    time gives verdict "error".
    `layout` ("nd", "bnd", "bhnd" or "bnhd") forces how inputs are shaped instead of probing;
    `args` are extra keyword arguments for every call, e.g. {"scaling": 0.125, "module": None}.
    `name` and `import_line` only change how the report names the target.
    `memory` (bytes) limits the address space of the child the target runs in (RLIMIT_AS:
    what it maps, not only what it touches; torch alone maps some GB); a target that fails
    for want of it is said to.

    The target runs in a forked child process, so nothing it does reaches the caller: a
    global setting it changes, `os._exit`, a call that never returns (killed with the
    child after `budget` + SLACK seconds), a process it starts (killed at the end, and
    counted in a note). It runs
    in an empty temporary folder, and the report names the files it wrote there. Changes
    it makes to itself (a cache it fills, weights it updates) stay in the child too.
    `in_process=True` runs it in this process instead, as `check` did before: the settings
    listed in restore.py (torch's default dtype, deterministic mode, random states, print
    options, cudnn.benchmark, numpy's random state, the working folder, ...) are put back
    afterwards, but a thread left running by a call that timed out keeps running, a
    process it starts keeps running, files it writes stay, `os._exit` ends the caller, and
    its other changes to modules and objects are not undone. A process where forking is
    unsafe (CUDA in use; JAX, MLX or TensorFlow imported; no fork) checks in this process
    too, and the report says so.
    """
    if layout is not None and layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}, not {layout!r}")
    here = functools.partial(
        _check_here, fn, kind, timeout, budget, name, import_line, layout, args
    )
    why = None if in_process else contain.fork_unsafe()
    if not in_process and why is None:
        return contain.forked(
            functools.partial(_in_child, here), _display(fn, name), budget + SLACK, memory
        )
    with restore.as_found():
        rep = here()
    if memory is not None:
        rep.notes.append("the memory limit holds only in a child process: not applied here")
    if why is not None:
        rep.notes.append(
            f"checked in this process, not in a child ({why}): global settings are put back, "
            "but threads, processes and files the target leaves are not (see check's docstring)"
        )
    return rep


def _in_child(here: Callable[[], Report]) -> Report:
    """The check in a forked child: the worker thread the parent may hold does not exist in
    the child, so the child's calls get one of their own."""
    runner._worker.clear()  # pyright: ignore[reportPrivateUsage]
    return here()


def _display(fn: Any, name: str | None) -> str:
    """The name a report gives the target."""
    qual = _name_in_module(fn) or getattr(fn, "__qualname__", None) or type(fn).__name__
    return name or qual


def _check_here(
    fn: Callable[..., Any],
    kind: str | None,
    timeout: float,
    budget: float,
    name: str | None,
    import_line: str | None,
    layout: str | None,
    args: dict[str, Any] | None,
) -> Report:
    """`check` in this process."""
    started = time.monotonic()
    qual: str = _name_in_module(fn) or getattr(fn, "__qualname__", None) or type(fn).__name__
    name = name or qual
    call_name = name.rpartition(":")[2] or qual
    module = _module_name(fn)
    imp = import_line or f"from {module} import {call_name.split('.')[0]}"
    imp = interpret_line(fn) + imp
    rep = Report(name)
    runner = Runner(fn, timeout, budget)
    with (
        warnings.catch_warnings(),
        np.errstate(all="ignore"),
        _one_torch_thread(),
        _as_found(_module_of(fn)),
        interpreted(fn, rep.notes),
    ):
        # The target's warnings (overflow in exp, deprecations) must not turn into errors
        # in a caller that runs with -W error; NaN and inf are judged from the output.
        warnings.simplefilter("ignore")
        try:
            if not callable(fn):
                raise TargetError(f"{name} is not callable ({type(fn).__name__})")
            target = Target(fn, runner, read_signature(fn), call_name, layout, args or {})
            _check(target, rep, imp, kind)
        except TargetError as exc:
            rep.error = str(exc)
        except Exception as exc:  # a bug in the checker must still give a clean verdict
            if os.environ.get("SELFATTN_CHECK_DEBUG"):
                raise
            rep.error = f"internal error in selfattn check: {summarize(exc)}"
    if runner.last_pair and rep.errors:
        rep.notes.append(
            "the target returns a tuple, and its first element was checked as the output: if "
            "the output is another one, as in (weights, output), check a function returning "
            f"it, e.g. lambda q, k, v: {call_name}(q, k, v)[1]"
        )
    rep.calls = runner.calls
    rep.seconds = time.monotonic() - started
    return rep


def _check(t: Target, rep: Report, imp: str, kind: str | None) -> None:
    """Make the target ready (eval mode, no dropout), find what it is, and run its rules."""
    rep.called_as = f"{t.name}{t.sig.text}" if t.sig.text else None
    if _eval_mode(t.fn, rep):  # the reproductions must run it the same way
        imp += f"\n{t.name.split('.')[0]}.eval()  # no dropout, as checked"
    # a dropout probability above 0 by default is passed as 0, unless the caller chose one:
    # a kernel is checked as it runs in inference, as a module is switched to eval mode
    no_dropout = {} if t.sig.dropout is None else {t.sig.dropout: 0.0}
    t = replace(t, args={**no_dropout, **t.args})
    # read once: whether this is a layer, and then the layer's weights
    proj = _projections(t, kind)
    _dispatch(t, kind or _kind(t.sig, proj), rep, imp, proj)


@contextlib.contextmanager
def _one_torch_thread() -> Iterator[None]:
    """Run torch single-threaded during the check, then restore its setting.

    The probes are tiny: handing them to torch's thread pool costs more than the work, and on
    a busy CPU the pool's waits made a 0.05 s check take seconds.
    """
    torch = sys.modules.get("torch")
    if torch is None:
        yield
        return
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


@contextlib.contextmanager
def _as_found(module: Any) -> Iterator[None]:
    """Leave a module as the check found it: each submodule's training mode (the check
    switches dropout off), and the values of every tensor it holds, parameters, buffers and
    plain attributes alike (a cache the layer fills, angles held at 0), in the same objects."""
    torch = sys.modules.get("torch")
    if torch is None or not isinstance(module, torch.nn.Module):
        yield
        return
    modes = [(m, m.training) for m in module.modules()]
    held = [
        (store, name, value, value.detach().clone())
        for m in module.modules()
        for store in (m._parameters, m._buffers, vars(m))
        for name, value in list(store.items())
        if isinstance(value, torch.Tensor)
    ]
    try:
        yield
    finally:
        with torch.no_grad():
            for store, name, value, before in held:
                store[name] = value
                value.copy_(before)
        for m, training in modes:
            m.training = training


def _name_in_module(fn: Any) -> str | None:
    """The name `fn` has in its module (`head`, `attn.qkv_attention`), for the reproductions:
    an instance's class name or a method's qualified name would not call it."""
    owner = getattr(fn, "__self__", None)
    module = sys.modules.get(_module_name(fn))
    for key, value in vars(module).items() if module is not None else ():
        if value is fn:
            return key
        if owner is not None and value is owner and hasattr(fn, "__name__"):
            return f"{key}.{fn.__name__}"
    return None


def _module_name(fn: Any) -> str:
    """The module the target is defined in: for `attention = _attention.apply` (a custom
    autograd.Function), the Function's module, not torch's."""
    owner = getattr(fn, "__self__", None)
    if getattr(fn, "__name__", "") == "apply" and isinstance(owner, type):
        return owner.__module__
    return getattr(fn, "__module__", None) or type(fn).__module__


def _eval_mode(fn: Any, rep: Report) -> bool:
    """An nn.Module in training mode would apply dropout: check it as it runs in inference.

    The target may be the module or one of its methods (Hugging Face's `attn._attn`), whose
    dropout is the module's: an nn.Dropout it holds, or a probability it passes to
    `F.dropout(..., training=self.training)` (T5's `self.dropout`, Llama's
    `self.attention_dropout`).
    """
    module = getattr(fn, "__self__", fn)
    if getattr(module, "training", False) is not True or not callable(
        getattr(module, "modules", None)
    ):
        return False
    layers: list[Any] = list(module.modules())
    held = any("Dropout" in type(m).__name__ for m in layers)
    said = any(
        "dropout" in name.lower() and isinstance(p, float) and p > 0
        for m in layers
        for name, p in vars(m).items()
    )
    if not (held or said):
        return False
    module.eval()
    whose = "the module" if module is fn else f"the module of {fn.__name__}"
    rep.notes.append(f"{whose} was switched to eval mode (no dropout) for the check")
    return True


def _module_of(fn: Any) -> Any:
    """The nn.Module a target is, or whose method it is."""
    return fn if hasattr(fn, "named_modules") else getattr(fn, "__self__", None)


def _projections(t: Target, kind: str | None) -> Projections | None:
    """A layer's projections, found by name and read from one run of it (names are hints: a
    layer whose names were never seen is read from what it runs), or None."""
    fn = t.fn
    if kind not in (None, "layer") or is_mlx_layer(fn):  # an MLX layer: read in _dispatch
        return None
    module = _module_of(fn)
    # a block's method other than its forward (CLIP's `attention(x)`, beside its MLP) is
    # read as the one attention layer the block holds
    part = fn is not module and getattr(fn, "__name__", "forward") != "forward"
    proj = find_projections(module, part)
    return read_layer(fn, t.runner, proj, t.args) if fn is module else proj


def _jax_layer(fn: Any, runner: Runner, kind: str | None) -> Read | None:
    """A JAX layer of x, read from its jaxpr (names are not read), when JAX is in use. An
    object holding its weights (a Keras layer on JAX) is read so even when its parameters
    are named like a kernel's (query, value), as a torch module is."""
    if "jax" not in sys.modules or hasattr(fn, "named_modules"):
        return None
    if kind == "kernel" and inspect.isroutine(fn):
        return None
    return read_jax_layer(fn, runner, ways(fn))


def _kind(sig: Any, proj: Projections | None) -> str | None:
    """A module holding q, k, v projections (`proj`) is a layer called on hidden states,
    unless its parameters are named q, k, v (nn.MultiheadAttention's are, and it is a layer
    all the same: it projects what it is given); otherwise what the signature said."""
    by_name = sig.qkv is not None and sig.qkv[0].lower() in named("q")
    if proj is None or (by_name and proj.inputs == 1):
        return sig.kind
    return "layer"


def _dispatch(t: Target, kind: str | None, rep: Report, imp: str, proj: Projections | None) -> None:
    fn, runner, name = t.fn, t.runner, t.name
    if is_mlx_layer(fn):
        _check_mlx_layer(t, rep, imp)
        return
    if proj is None and (found := _jax_layer(fn, runner, kind)) is not None:
        rules.run(jax_layer.start(found, t, rep, imp))
        return
    if proj is None and (backend := keras_backend(fn)) not in (None, "torch"):
        where = " (its jaxpr, where a rotation of q and k is not read)"
        raise TargetError(
            f"{name} is a Keras layer on the {backend} backend, and its attention was not found "
            f"in what it runs{where if backend == 'jax' else ''}: set KERAS_BACKEND=torch, with "
            "torch installed, to check it through the torch calls it makes"
        )
    if kind == "model":
        rules.run(model.start(fn, runner, rep, imp, name))
        return
    if kind == "layer":
        _check_layer(t, rep, imp, proj)
        return
    try:
        if uses_triton(fn):  # raw pointers: only the layouts and shapes it accepts
            raise TargetError(f"{name} runs Triton kernels")
        kern = connect(t)
    except TargetError as exc:
        if isinstance(exc, Timeout):
            raise
        if _check_accepted(t, rep, imp):
            return
        if kind == "kernel":
            raise
        try:  # the signature did not tell: maybe token ids -> vectors
            rules.run(model.start(fn, runner, rep, imp, name))
        except TargetError as exc2:
            raise TargetError(f"{exc}; as a model: {exc2}") from None
        return
    rules.run(diagnose.start(kern, rep, imp))


def _check_accepted(t: Target, rep: Report, imp: str) -> bool:
    """A kernel that refuses the usual probes, checked on the inputs it runs on (accepts.py);
    whether there were any. Lengths at which it ran outside its tensors are a finding."""
    found = learn(t)
    if found is None:
        return False
    kern, learned = found
    kern.shapes = learned.used
    rep.notes.append(learned.note(kern))
    rules.run(diagnose.start(kern, rep, imp))
    if (outside := learned.outside(kern)) is not None:  # after: diagnose set kern.imp
        rep.titled("reads-out-of-bounds", *outside)
    return True


def _check_mlx_layer(t: Target, rep: Report, imp: str) -> None:
    """An mlx.nn.Module of hidden states, read by name, its RoPE held at angle 0, checked by
    effect as a JAX layer is."""
    if (found := read_mlx_layer(t.fn)) is None:
        raise TargetError(f"{t.name} holds no q, k, v projections under a known name")
    with rope_at_zero(t.fn) as turned:
        rep.notes += [f"its RoPE `{n}` held at angle 0 for the check" for n in turned]
        rules.run(jax_layer.start(found, t, rep, imp, (MlxLayer, MlxText)))


def _check_layer(t: Target, rep: Report, imp: str, proj: Projections | None) -> None:
    """A layer of hidden states, checked through its projections (None: none was found);
    its masks are the parameters named as masks, or, when none is and the module itself is
    the target, the arguments a run shows reaching the scores."""
    if proj is None:
        raise TargetError(f"{t.name} holds no q, k, v projections under a known name")
    # a layer's second and third parameters are no k and v: a mask among them is a mask
    given = (*(t.sig.qkv or ()), *(m.name for m in t.sig.masks))
    masks = [n for n in given if is_mask_name(n)]
    module = _module_of(t.fn)
    if not masks and t.fn is module:  # a mask under another name: found by where it goes
        masks = masks_seen(module, t.runner, proj, t.args)
    with angles_at_zero(module, t.runner) as zeroed:
        rules.run(layer_rules.start(t, module, proj, masks, rep, imp, zeroed))
