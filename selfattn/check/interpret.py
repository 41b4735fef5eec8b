"""Triton kernels on a CPU: a launcher around `@triton.jit` code runs under Triton's own
interpreter (TRITON_INTERPRET=1), which executes each program instance in numpy on CPU tensors.

The interpreter is chosen when `@triton.jit` decorates a kernel, so the CLI sets the variable
before the target's file is imported; a target handed to `check()` was imported already, and
its kernels are swapped for interpreted ones for the length of the check, then put back.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import os
import sys
from collections.abc import Iterator
from typing import Any, ClassVar

NOTE = (
    "Triton kernels run under Triton's interpreter (TRITON_INTERPRET=1) on CPU tensors: no GPU "
    "here, so timings say nothing and GPU-only features cannot run"
)
STAND_IN_NOTE = (
    "no GPU driver: a CPU stand-in answered the launcher's questions to Triton's driver "
    "(device cpu, backend 'cpu': neither CUDA nor HIP, so it took its portable path, no TMA), "
    "and autotuning took the first config that runs instead of timing each"
)


def on_cpu() -> bool:
    """Before a file that uses Triton is imported on a machine without a GPU: the interpreter
    on, and a stand-in for Triton's driver, which published launchers ask at import time
    (`DEVICE = triton.runtime.driver.active.get_active_torch_device()`, `is_hip()` in their
    autotuning configs) and which has no CPU backend to answer. Whether it was needed."""
    os.environ.setdefault("TRITON_INTERPRET", "1")
    try:
        from triton.runtime import driver  # pyright: ignore[reportMissingImports]
    except ImportError:
        return False
    try:  # triton >= 3.5 makes the driver when `active` is read, 3.4 when it is used
        driver.active.get_current_target()
    except RuntimeError:  # "0 active drivers": no GPU backend here
        driver.set_active(_StandIn())
        return True
    return isinstance(driver.active, _StandIn)


class _StandIn:
    """What a launcher asks Triton's driver, answered for CPU tensors under the interpreter."""

    def get_active_torch_device(self) -> Any:
        import torch  # pyright: ignore[reportMissingImports]

        return torch.device("cpu")

    def get_current_target(self) -> Any:
        from triton.backends.compiler import GPUTarget  # pyright: ignore[reportMissingImports]

        return GPUTarget("cpu", 0, 1)

    def get_current_device(self) -> int:
        return 0

    def get_benchmarker(self) -> Any:
        return _first_that_runs

    def is_active(self) -> bool:
        return True


def _first_that_runs(kernel_call: Any, quantiles: Any = None, **_: Any) -> list[float]:
    """Autotuning under the interpreter: a config's time says nothing on a CPU, and timing
    every config runs the kernel once per config. The first config that runs wins (time 0);
    one that fails (a block wider than the head, a static_assert) is out (time inf); the
    autotuner calls this for its configs in order, and `_Tuning` starts each round."""
    if _Tuning.won:
        return [float("inf")] * 3
    try:
        kernel_call()
    except Exception:  # a config the kernel refuses: the autotuner tries the next
        return [float("inf")] * 3
    _Tuning.won = True
    return [0.0] * 3


class _Tuning:
    won = False


def _new_round(tuner: Any) -> None:
    """Each autotuning round (one per key) starts with no config run yet."""
    prune = tuner.prune_configs

    def pruned(kwargs: Any) -> Any:
        _Tuning.won = False
        return prune(kwargs)

    tuner.prune_configs = pruned
    if isinstance(_driver_active(), _StandIn):
        tuner.__dict__["do_bench"] = _first_that_runs  # a cached_property, read once


def _driver_active() -> Any:
    try:
        from triton.runtime import driver  # pyright: ignore[reportMissingImports]

        active = driver.active
        return active if isinstance(active, _StandIn) else None
    except (ImportError, RuntimeError):
        return None


def uses_triton(fn: Any) -> bool:
    """Whether the target's module (or its autograd.Function's) holds `@triton.jit` kernels."""
    return any(_kernels(vars(m)) for m in _modules(fn))


def gpu() -> bool:
    torch = sys.modules.get("torch")
    return bool(torch is not None and torch.cuda.is_available())


def interpreting() -> bool:
    return os.environ.get("TRITON_INTERPRET") == "1"


@contextlib.contextmanager
def interpreted(fn: Any, notes: list[str]) -> Iterator[None]:
    """Run the target's Triton kernels under the interpreter when there is no GPU."""
    if "triton" not in sys.modules or not uses_triton(fn) or (gpu() and not interpreting()):
        yield
        return
    _ready(fn, notes)
    swapped = _swap_all(fn)
    try:
        yield
    finally:
        for owner, name, kernel in reversed(swapped):
            setattr(owner, name, kernel)


def _ready(fn: Any, notes: list[str]) -> None:
    """Say how the kernels run, give each autotuner a fresh round, guard the memory."""
    notes.append(NOTE)
    if isinstance(_driver_active(), _StandIn):
        notes.append(STAND_IN_NOTE)
    for module in _modules(fn):
        for kernel in _kernels(vars(module)).values():
            if hasattr(kernel, "prune_configs") and "do_bench" not in vars(kernel):
                _new_round(kernel)
    guard_memory()


def _swap_all(fn: Any) -> list[tuple[Any, str, Any]]:
    """Swap the compiled kernels of the target's modules and of triton.language for
    interpreted ones; what was swapped, to put back.

    Kernels made when TRITON_INTERPRET was set are interpreted already and stay; the others
    (the file imported before it was set) are swapped. triton.language's own reductions
    (tl.max, tl.sum) are `@triton.jit` code too, made compiled when triton was imported."""
    with contextlib.suppress(Exception):  # the interpreter imports gluon, which wants them
        importlib.import_module("triton.experimental.gluon")  # compiled: import it first
    swapped: list[tuple[Any, str, Any]] = []
    language = [m for n, m in list(sys.modules.items()) if n.startswith("triton.language") and m]
    for module in [*_modules(fn), *language]:
        for name, kernel in _kernels(vars(module)).items():
            swapped += _swap(module, name, kernel)
    return swapped


class OutOfBounds(IndexError):
    """A kernel under the interpreter touched memory outside the tensors it was handed."""


def guard_memory() -> None:
    """Make a load or store outside the kernel's own tensors an error instead of a crash.

    The interpreter reads and writes CPU tensors through raw addresses, so a kernel whose block
    is longer than the probe (the tutorial's BLOCK_M = 64 on n = 16, with no boundary check)
    reads past the end of its inputs and writes past the end of its output: the process
    dies (status -11) or goes on with garbage. On a GPU the same launch would fault too, so
    this is a shape the kernel refuses, and the learner moves on to the next one."""
    from triton.runtime import interpreter  # pyright: ignore[reportMissingImports]

    if getattr(interpreter, "_selfattn_guarded", False):
        return
    executor = interpreter.GridExecutor
    init = executor._init_args_hst

    def init_args(self: Any, *args: Any, **kwargs: Any) -> Any:
        hst = init(self, *args, **kwargs)
        named = _named(self.fn, hst)
        _Launch.spans = _spans(named)
        _Launch.blocks |= _blocks(self.fn, named)
        return hst

    executor._init_args_hst = init_args
    builder = interpreter.InterpreterBuilder
    load, store = builder.create_masked_load, builder.create_masked_store

    def masked_load(self: Any, ptrs: Any, mask: Any, *rest: Any, **kw: Any) -> Any:
        _check(ptrs, mask, "reads")
        return load(self, ptrs, mask, *rest, **kw)

    def masked_store(self: Any, ptrs: Any, value: Any, mask: Any, *rest: Any, **kw: Any) -> Any:
        _check(ptrs, mask, "writes")
        return store(self, ptrs, value, mask, *rest, **kw)

    builder.create_masked_load, builder.create_masked_store = masked_load, masked_store
    interpreter._selfattn_guarded = True


class _Launch:
    # [start, end) of each tensor's storage, and the kernel's name for it
    spans: ClassVar[list[tuple[int, int, str]]] = []
    # the powers of two the launches passed as constexprs (BLOCK_M = 256, HEAD_DIM = 64): a
    # kernel with no boundary mask runs only at lengths its blocks divide
    blocks: ClassVar[set[int]] = set()


def blocks_launched(forget: bool = False) -> set[int]:
    """The constexpr powers of two launched with since the last `forget`."""
    seen = set(_Launch.blocks)
    if forget:
        _Launch.blocks = set()
    return seen


def _blocks(fn: Any, args: dict[str, Any]) -> set[int]:
    """The powers of two from 16 up among a launch's `tl.constexpr` arguments."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return set()
    return {
        v
        for name, v in args.items()
        if name in params and "constexpr" in str(params[name].annotation)
        if type(v) is int and v >= 16 and v & (v - 1) == 0
    }


def _named(fn: Any, hst: Any) -> dict[str, Any]:
    """A launch's host arguments by the kernel's parameter names (`Q`, `K`, `Out`), so that a
    fault can say which tensor it ran past."""
    args, kwargs = hst
    try:
        names = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        names = []
    names += [f"argument {i}" for i in range(len(names), len(args))]
    return {**dict(zip(names, args, strict=False)), **kwargs}


def _spans(args: dict[str, Any]) -> list[tuple[int, int, str]]:
    """The byte ranges of every tensor among a launch's arguments (in tuples, descriptors)."""
    found: list[tuple[int, int, str]] = []

    def walk(arg: Any, name: str) -> None:
        if isinstance(arg, (list, tuple)):
            for a in arg:
                walk(a, name)
        elif isinstance(arg, dict):
            for a in arg.values():
                walk(a, name)
        elif hasattr(arg, "untyped_storage"):
            at = arg.untyped_storage().data_ptr()
            found.append((at, at + arg.untyped_storage().nbytes(), name))
        elif hasattr(arg, "base") and hasattr(arg.base, "untyped_storage"):  # a descriptor
            walk(arg.base, name)

    for name, arg in args.items():
        walk(arg, name)
    return found


def _check(ptrs: Any, mask: Any, verb: str) -> None:
    import numpy as np

    if not _Launch.spans:
        return
    at = np.asarray(ptrs.data, dtype=np.uint64)[np.broadcast_to(mask.data, ptrs.data.shape)]
    if at.size == 0:
        return
    width = max(1, ptrs.get_element_ty().primitive_bitwidth // 8)
    inside = np.zeros(at.shape, dtype=bool)
    for start, end, _ in _Launch.spans:
        inside |= (at >= start) & (at + width <= end)
    if not inside.all():
        raise OutOfBounds(
            f"the kernel {verb} {int((~inside).sum())} elements outside the tensors it was "
            f"handed ({_past(at, inside)}: a block longer than the input, with no mask or "
            "boundary check)"
        )


def _past(at: Any, inside: Any) -> str:
    """Which tensor an access ran out of: the one its elements inside belong to (a block of
    K's rows, the last ones past its end), else the one just below its first address outside."""
    first = int(at[~inside].min())
    within = [int(a) for a in at[inside][:1]]
    for start, end, name in _Launch.spans:
        if within and start <= within[0] < end:
            return f"past the end of {name}" if first >= end else f"before the start of {name}"
    below = [(end, name) for start, end, name in _Launch.spans if end <= first]
    return f"past the end of {max(below)[1]}" if below else "before the start of every tensor"


def _modules(fn: Any) -> list[Any]:
    """The modules the target's code lives in: its own, and its owner's (`_attention.apply`)."""
    owner = getattr(fn, "__self__", None)
    names = {getattr(x, "__module__", None) for x in (fn, owner, type(fn))}
    return [sys.modules[n] for n in names if n and n in sys.modules and n.split(".")[0] != "torch"]


def _kernels(scope: dict[str, Any]) -> dict[str, Any]:
    """Triton kernels (jit, interpreted, autotuned or heuristics-wrapped) by name."""
    return {
        name: value
        for name, value in scope.items()
        if type(value).__module__.startswith("triton.runtime")
    }


def _swap(module: Any, name: str, kernel: Any) -> list[tuple[Any, str, Any]]:
    """Put an interpreted kernel where a compiled one is: in the module, or inside the
    autotuner that wraps it; what to put back."""
    from triton.runtime.interpreter import InterpretedFunction  # pyright: ignore
    from triton.runtime.jit import JITFunction  # pyright: ignore

    if isinstance(kernel, JITFunction):
        setattr(module, name, InterpretedFunction(kernel.fn))
        return [(module, name, kernel)]
    inner = getattr(kernel, "fn", None)
    if inner is not None and not isinstance(kernel, InterpretedFunction):
        return [(o, n, k) for o, n, k in _swap(kernel, "fn", inner)]
    return []


def interpret_line(fn: Any) -> str:
    """What a reproduction starts with to run the target's Triton kernels as the check did."""
    if "triton" not in sys.modules or not uses_triton(fn) or (gpu() and not interpreting()):
        return ""
    if _driver_active() is not None:  # the launcher asks the driver at import
        return (
            "from selfattn.check.interpret import on_cpu\n"
            "on_cpu()  # no GPU: Triton's interpreter and a stand-in driver, before the import\n"
        )
    return (
        'import os\nos.environ["TRITON_INTERPRET"] = "1"  # no GPU: Triton\'s interpreter, '
        "set before triton is imported\n"
    )
