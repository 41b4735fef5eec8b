"""What the gradient check adds to `selfattn check`: best of three checks of two torch kernels
with and without it, and a Triton kernel under the interpreter when triton is installed.

    python -m bench.gradient_cost
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import time

from selfattn.check import check, rules
from tests.check.corpus_cases import load

TORCH_TARGETS = ("torch_flash_backward.py", "torch_correct_sdpa.py")
TRITON_TARGET = "triton_fused_attention.py"


GRADIENT_RULES = {"gradients", "weight-gradients"}  # the engine's rules this times


def seconds(fn, gradients: bool = True, repeats: int = 3) -> float:
    """Best wall time of `repeats` checks of `fn`, with or without the gradient rules."""
    every = rules.RULES
    if not gradients:
        rules.RULES = tuple(r for r in every if r.id not in GRADIENT_RULES)
    try:
        best = float("inf")
        for _ in range(repeats):
            started = time.perf_counter()
            with contextlib.redirect_stdout(io.StringIO()):
                check(fn)
            best = min(best, time.perf_counter() - started)
        return best
    finally:
        rules.RULES = every


def main() -> None:
    if importlib.util.find_spec("torch") is None:
        print("gradient check: torch is not installed, nothing to time")
        return
    fns = [load(name) for name in TORCH_TARGETS]
    without = sum(seconds(fn, gradients=False) for fn in fns)
    with_gradients = sum(seconds(fn) for fn in fns)
    print(
        f"gradient check: {without:.2f} s → {with_gradients:.2f} s for {len(fns)} torch kernels "
        f"(×{with_gradients / without:.2f}; the goal is at most ×2)"
    )
    if importlib.util.find_spec("triton") is None:
        print("triton kernel: triton is not installed (pip install 'selfattn[triton]')")
        return
    took = seconds(load(TRITON_TARGET), repeats=1)
    print(f"triton kernel under the interpreter: {took:.1f} s (the goal is under 60 s)")


if __name__ == "__main__":
    main()
