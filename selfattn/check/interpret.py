"""Triton kernels on a CPU: a launcher around `@triton.jit` code runs under Triton's own
interpreter (TRITON_INTERPRET=1), which executes each program instance in numpy on CPU tensors.

The interpreter is chosen when `@triton.jit` decorates a kernel, so the CLI sets the variable
before the target's file is imported; a target handed to `check()` was imported already, and
its kernels are swapped for interpreted ones for the length of the check, then put back.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from collections.abc import Iterator
from typing import Any

NOTE = (
    "Triton kernels run under Triton's interpreter (TRITON_INTERPRET=1) on CPU tensors: no GPU "
    "here, so timings say nothing and GPU-only features cannot run"
)


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
    notes.append(NOTE)
    if interpreting():  # the kernels were made interpreted when their file was imported
        yield
        return
    with contextlib.suppress(Exception):  # the interpreter imports gluon, which wants them
        importlib.import_module("triton.experimental.gluon")  # compiled: import it first
    swapped: list[tuple[Any, str, Any]] = []
    # triton.language's own reductions (tl.max, tl.sum) are `@triton.jit` code too, made
    # compiled when triton was imported
    language = [m for n, m in list(sys.modules.items()) if n.startswith("triton.language") and m]
    for module in [*_modules(fn), *language]:
        for name, kernel in _kernels(vars(module)).items():
            swapped += _swap(module, name, kernel)
    try:
        yield
    finally:
        for owner, name, kernel in reversed(swapped):
            setattr(owner, name, kernel)


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
    return (
        'import os\nos.environ["TRITON_INTERPRET"] = "1"  # no GPU: Triton\'s interpreter, '
        "set before triton is imported\n"
    )
