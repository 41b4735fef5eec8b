"""What a check run in the caller's own process (`check(..., in_process=True)`) puts back.

A target may change global settings as it runs: torch's default dtype and device,
deterministic mode, gradient mode, print options, thread count, the backends' switches
(cuDNN's, oneDNN's (mkldnn), TF32 matmuls, reduced-precision reductions, the fused attention
kernels), the random generators' states (torch's, numpy's, Python's), numpy's print options,
environment variables, the working folder, the umask, the recursion limit, the thread switch
interval, the longest integer string, the default socket timeout and the warnings filters.
Each is read before the check and set again after it (torch's only when torch was imported
before the check began). What cannot be put back is said in `check()`'s docstring: a thread
the target leaves running, a process it starts, a file it writes, `os._exit`, and any other
change to a module or object.
"""

from __future__ import annotations

import contextlib
import functools
import os
import random
import socket
import sys
import warnings
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
    threads = torch.get_num_threads()
    back: list[Restore] = [
        lambda: torch.set_default_dtype(dtype),
        lambda: torch.set_grad_enabled(grad),
        lambda: torch.use_deterministic_algorithms(deterministic, warn_only=warn_only),
        lambda: torch.set_rng_state(rng),
        lambda: torch.set_anomaly_enabled(anomaly),
        lambda: vars(torch._tensor_str.PRINT_OPTS).update(opts),
        lambda: _set(cudnn, ("benchmark", "deterministic", "enabled", "allow_tf32"), switches),
        lambda: torch.set_float32_matmul_precision(matmul),
        lambda: torch.set_num_threads(threads),
        *_switches(torch.backends),
    ]
    if hasattr(torch, "get_default_device"):
        device = torch.get_default_device()
        back.append(lambda: torch.set_default_device(device))
    if torch.cuda.is_initialized():
        cuda_rng = torch.cuda.get_rng_state_all()
        back.append(lambda: torch.cuda.set_rng_state_all(cuda_rng))
    return back


# switches of torch.backends kept as attributes: (where, name), read if this torch has them
SWITCHES = (
    ("mkldnn", "enabled"),
    ("cuda.matmul", "allow_tf32"),
    ("cuda.matmul", "allow_fp16_reduced_precision_reduction"),
    ("cuda.matmul", "allow_bf16_reduced_precision_reduction"),
    ("opt_einsum", "enabled"),
)
# the fused attention kernels' switches, set and read by a pair of functions each
SDP = ("flash_sdp", "mem_efficient_sdp", "math_sdp", "cudnn_sdp")


def _switches(backends: Any) -> list[Restore]:
    """torch.backends' switches (SWITCHES, SDP), each as the call that sets it back."""
    back: list[Restore] = []
    for where, name in SWITCHES:
        owner = functools.reduce(getattr, where.split("."), backends)
        if hasattr(owner, name):
            back.append(functools.partial(setattr, owner, name, getattr(owner, name)))
    for kernel in SDP:
        read = getattr(backends.cuda, f"{kernel}_enabled", None)
        if read is not None and hasattr(backends.cuda, f"enable_{kernel}"):
            back.append(functools.partial(getattr(backends.cuda, f"enable_{kernel}"), read()))
    return back


def _set(obj: Any, names: tuple[str, ...], values: tuple[Any, ...]) -> None:
    for name, value in zip(names, values, strict=True):
        setattr(obj, name, value)


def _process() -> list[Restore]:
    """The process's own: working folder, environment, umask, recursion limit, switch
    interval, integer string limit, socket timeout, warnings filters, numpy's and Python's
    generators."""
    cwd, environ = os.getcwd(), dict(os.environ)
    mask, depth = os.umask(0o022), sys.getrecursionlimit()
    os.umask(mask)  # only read: umask has no getter
    np_rng, np_print, py_rng = np.random.get_state(), np.get_printoptions(), random.getstate()
    interval, filters = sys.getswitchinterval(), list(warnings.filters)
    digits = getattr(sys, "get_int_max_str_digits", lambda: None)()
    timeout = socket.getdefaulttimeout()

    def warned() -> None:
        warnings.filters = list(filters)  # as catch_warnings puts them back
        warnings._filters_mutated()  # pyright: ignore[reportAttributeAccessIssue]  # caches

    def env() -> None:
        if dict(os.environ) != environ:
            os.environ.clear()
            os.environ.update(environ)

    return [
        lambda: os.chdir(cwd),
        env,
        functools.partial(os.umask, mask),  # type: ignore[list-item]  # its int is dropped
        lambda: sys.setrecursionlimit(depth),
        lambda: sys.setswitchinterval(interval),
        lambda: digits is None or sys.set_int_max_str_digits(digits),
        lambda: socket.setdefaulttimeout(timeout),
        warned,
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
