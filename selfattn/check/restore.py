"""What a check run in the caller's own process (`check(..., in_process=True)`) puts back.

A target may change global settings as it runs: torch's default dtype and device,
deterministic mode, gradient mode, print options, cuDNN's switches, the random generators'
states (torch's, numpy's, Python's), numpy's print options, environment variables, the
working folder, the umask and the recursion limit. Each is read before the check and set
again after it (torch's only when torch was imported before the check began). What cannot
be put back is said in `check()`'s docstring: a thread the target leaves running, a process
it starts, a file it writes, `os._exit`, and any other change to a module or object.
"""

from __future__ import annotations

import contextlib
import functools
import os
import random
import sys
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

Restore = Callable[[], None]


def _torch(torch: Any) -> list[Restore]:
    """The settings of torch a target can change, each as the call that sets it back."""
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    deterministic = torch.are_deterministic_algorithms_enabled()
    warn_only = torch.is_deterministic_algorithms_warn_only_enabled()
    rng, anomaly = torch.get_rng_state(), torch.is_anomaly_enabled()
    opts = vars(torch._tensor_str.PRINT_OPTS).copy()
    cudnn = torch.backends.cudnn
    switches = (cudnn.benchmark, cudnn.deterministic, cudnn.enabled, cudnn.allow_tf32)
    matmul = torch.get_float32_matmul_precision()
    tf32 = torch.backends.cuda.matmul.allow_tf32
    back: list[Restore] = [
        lambda: torch.set_default_dtype(dtype),
        lambda: torch.set_grad_enabled(grad),
        lambda: torch.use_deterministic_algorithms(deterministic, warn_only=warn_only),
        lambda: torch.set_rng_state(rng),
        lambda: torch.set_anomaly_enabled(anomaly),
        lambda: vars(torch._tensor_str.PRINT_OPTS).update(opts),
        lambda: _set(cudnn, ("benchmark", "deterministic", "enabled", "allow_tf32"), switches),
        lambda: torch.set_float32_matmul_precision(matmul),
        lambda: setattr(torch.backends.cuda.matmul, "allow_tf32", tf32),
    ]
    if hasattr(torch, "get_default_device"):
        device = torch.get_default_device()
        back.append(lambda: torch.set_default_device(device))
    if torch.cuda.is_initialized():
        cuda_rng = torch.cuda.get_rng_state_all()
        back.append(lambda: torch.cuda.set_rng_state_all(cuda_rng))
    return back


def _set(obj: Any, names: tuple[str, ...], values: tuple[Any, ...]) -> None:
    for name, value in zip(names, values, strict=True):
        setattr(obj, name, value)


def _process() -> list[Restore]:
    """The process's own: working folder, environment, umask, recursion limit, numpy's and
    Python's generators."""
    cwd, environ = os.getcwd(), dict(os.environ)
    mask, depth = os.umask(0o022), sys.getrecursionlimit()
    os.umask(mask)  # only read: umask has no getter
    np_rng, np_print, py_rng = np.random.get_state(), np.get_printoptions(), random.getstate()

    def env() -> None:
        if dict(os.environ) != environ:
            os.environ.clear()
            os.environ.update(environ)

    return [
        lambda: os.chdir(cwd),
        env,
        functools.partial(os.umask, mask),  # type: ignore[list-item]  # its int is dropped
        lambda: sys.setrecursionlimit(depth),
        lambda: np.random.set_state(np_rng),
        lambda: np.set_printoptions(**np_print),
        lambda: random.setstate(py_rng),
    ]


@contextlib.contextmanager
def as_found() -> Iterator[None]:
    """Put back, after the block, every global setting listed in the module's docstring."""
    back = _process()
    torch = sys.modules.get("torch")
    if torch is not None:
        back += _torch(torch)
    try:
        yield
    finally:
        for restore in back:
            with contextlib.suppress(Exception):  # one that fails must not stop the rest
                restore()
