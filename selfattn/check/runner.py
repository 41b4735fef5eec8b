"""Calling the target: every call on one worker thread, within a timeout per call and a
budget in all."""

from __future__ import annotations

import functools
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from .frameworks import (
    CallFailed,
    Returned,
    materialize,
    summarize,
)


class TargetError(Exception):
    """The target cannot be checked at all (exit status 2); the message says why."""


class Timeout(TargetError):
    """The target did not return in time; nothing more is tried."""


Job = tuple[Callable[..., Any], tuple, dict, "queue.Queue[tuple[bool, Any]]"]


class Worker:
    """The daemon thread that makes every call to a target, check after check, so that a call
    that never returns can be abandoned.

    One thread, not one per check: tinygrad keeps its compile cache in an SQLite connection
    that only the thread that opened it may use, and a second check on a thread of its own
    failed with "SQLite objects created in a thread can only be used in that same thread".
    The output is read into numpy on that thread too (MLX arrays can only be read there).
    """

    # calls that raised MemoryError, in this process: under a memory limit the check goes on
    # without them (float32 where float64 failed) and must say so (hostile pass 7)
    out_of_memory = 0

    def __init__(self) -> None:
        self.jobs: queue.Queue[Job] = queue.Queue()
        threading.Thread(target=self._serve, name="selfattn-check", daemon=True).start()

    def _serve(self) -> None:
        while True:
            fn, args, kwargs, reply = self.jobs.get()
            # errstate is per thread: the target's overflow must not raise here.
            with np.errstate(all="ignore"):
                try:
                    reply.put((True, materialize(fn(*args, **kwargs))))
                except BaseException as exc:  # a target may even call sys.exit()
                    Worker.out_of_memory += isinstance(exc, MemoryError)
                    reply.put((False, exc))


_worker: list[Worker] = []  # the one in use; replaced only when a call is abandoned in it


def worker() -> Worker:
    if not _worker:
        _worker.append(Worker())
    return _worker[0]


class Runner:
    """Calls the target on the worker thread, within a timeout per call and a budget in all."""

    def __init__(self, fn: Callable[..., Any], timeout: float, budget: float) -> None:
        self.fn = fn
        self.timeout = timeout
        self.budget = budget
        self.deadline = time.monotonic() + budget
        self.calls = 0
        self.last_dtype = ""
        self.last_pair = False  # the last output was the first of a tuple
        self.around: Any = None  # a context every call runs within (rotary.angles_at_zero)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.call_other(self.fn, *args, **kwargs)

    def call_other(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """`fn(*args, **kwargs)` on the worker thread, as the target is called (a function
        that runs the target under a trace)."""
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise Timeout(
                f"gave up after {self.budget:.3g} s and {self.calls} calls: the target is too slow"
            )
        reply: queue.Queue[tuple[bool, Any]] = queue.Queue()
        if self.around is not None:
            fn = functools.partial(_within, self.around, fn)
        worker().jobs.put((fn, args, kwargs, reply))
        self.calls += 1
        wait = min(self.timeout, remaining)
        try:
            ok, value = reply.get(timeout=wait)
        except queue.Empty:
            _worker.clear()  # the call still holds the thread: later calls need another
            given = [*args, *(a for a in kwargs.values() if hasattr(a, "shape"))]
            shapes = ", ".join(describe(a) for a in given)
            raise Timeout(_overran(self, wait, shapes)) from None
        if not ok:
            raise CallFailed(summarize(value))
        assert isinstance(value, Returned)
        self.last_dtype = value.dtype
        self.last_pair = value.pair
        return value.value


def _overran(runner: Runner, wait: float, shapes: str) -> str:
    """Which limit a call that did not return ran into: its own timeout, or what was left of
    the check's time in all (a slow target's last call is cut short by the latter)."""
    if wait < runner.timeout:
        return (
            f"the check's time limit ({runner.budget:.3g} s in all) ran out during call "
            f"{runner.calls}, {wait:.3g} s into it (each call may take {runner.timeout:.3g} s): "
            f"the target is too slow to check in that time (called with {shapes})"
        )
    return (
        f"the target did not return within {wait:.3g} s, the time each call may take "
        f"(--timeout; called with {shapes})"
    )


def _within(context: Any, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    with context():
        return fn(*args, **kwargs)


def describe(x: Any) -> str:
    """`float64 (7, 5)` for arrays and tensors, the type name otherwise."""
    shape = getattr(x, "shape", None)
    if shape is None:
        return type(x).__name__
    return f"{str(getattr(x, 'dtype', '')).replace('torch.', '')} {tuple(shape)}"
