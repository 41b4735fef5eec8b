"""Calling the target: timeouts, numpy or torch inputs, signatures, and the mask convention."""

from __future__ import annotations

import importlib.util
import inspect
import queue
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .reference import BFLOAT16, FLOAT16, FLOAT32, Precision

FLAG_NAMES = ("causal", "is_causal")
MASK_NAMES = ("mask", "attn_mask", "attention_mask")


class TargetError(Exception):
    """The target cannot be checked at all (exit status 2); the message says why."""


class Timeout(TargetError):
    """The target did not return in time; nothing more is tried."""


class CallFailed(Exception):
    """One call raised or returned something unusable; the message is a one-line summary."""


def summarize(exc: BaseException) -> str:
    """`TypeError: message`, one line, short: what a report shows instead of a traceback."""
    text = " ".join(str(exc).split())
    text = text if len(text) <= 200 else text[:197] + "..."
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class Runner:
    """Calls the target in a daemon thread so that a call that never returns can be abandoned."""

    def __init__(self, fn: Callable[..., Any], timeout: float, budget: float) -> None:
        self.fn = fn
        self.timeout = timeout
        self.budget = budget
        self.deadline = time.monotonic() + budget
        self.calls = 0
        self._jobs: queue.Queue[tuple[tuple, dict, queue.Queue] | None] = queue.Queue()
        self._thread: threading.Thread | None = None

    def _serve(self) -> None:
        while (job := self._jobs.get()) is not None:
            args, kwargs, reply = job
            # errstate is per thread: the target's overflow must not raise here.
            with np.errstate(all="ignore"):
                try:
                    reply.put((True, self.fn(*args, **kwargs)))
                except BaseException as exc:  # a target may even call sys.exit()
                    reply.put((False, exc))

    def close(self) -> None:
        """Let the thread end once it is free (a call stuck in the target keeps it)."""
        if self._thread is not None:
            self._jobs.put(None)
            self._thread = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise Timeout(
                f"gave up after {self.budget:.3g} s and {self.calls} calls: the target is too slow"
            )
        if self._thread is None:
            self._thread = threading.Thread(target=self._serve, name="selfattn-check", daemon=True)
            self._thread.start()
        reply: queue.Queue = queue.Queue()
        self._jobs.put((args, kwargs, reply))
        self.calls += 1
        wait = min(self.timeout, remaining)
        try:
            ok, value = reply.get(timeout=wait)
        except queue.Empty:
            shapes = ", ".join(describe(a) for a in args)
            raise Timeout(
                f"the target did not return within {wait:.3g} s (called with {shapes})"
            ) from None
        if not ok:
            raise CallFailed(summarize(value))
        return value


def describe(x: Any) -> str:
    """`float64 (7, 5)` for arrays and tensors, the type name otherwise."""
    shape = getattr(x, "shape", None)
    if shape is None:
        return type(x).__name__
    return f"{str(getattr(x, 'dtype', '')).replace('torch.', '')} {tuple(shape)}"


# -- numpy or torch -------------------------------------------------------------------------


def torch_available() -> bool:
    """True when torch can be imported; importing it is left to the first use."""
    return "torch" in sys.modules or importlib.util.find_spec("torch") is not None


@dataclass(frozen=True)
class Backend:
    """How to hand arrays to the target: numpy or torch, and at which float width."""

    name: str  # "numpy" | "torch"
    dtype: str  # "float64" | "float32"

    def floats(self, x: np.ndarray) -> Any:
        x = np.ascontiguousarray(x, dtype=self.dtype)  # always a fresh copy: targets may mutate
        if self.name == "torch":
            import torch  # pyright: ignore[reportMissingImports]

            return torch.from_numpy(x.copy())
        return x.copy()

    def bools(self, x: np.ndarray) -> Any:
        x = np.array(x, dtype=bool)
        if self.name == "torch":
            import torch  # pyright: ignore[reportMissingImports]

            return torch.from_numpy(x)
        return x

    def literal(self, x: np.ndarray) -> str:
        """Source text that rebuilds the float array `x`, for the reproductions."""
        body = repr(_plain(x))
        if self.name == "torch":
            return f"torch.tensor({body}, dtype=torch.{self.dtype})"
        return f"np.array({body}, dtype=np.{self.dtype})"


def _plain(x: np.ndarray) -> Any:
    """Nested lists, with ints where the entries are whole numbers (shorter to read)."""
    if np.all(np.isfinite(x)) and np.all(x == np.round(x)):
        return np.asarray(x, dtype=np.int64).tolist()
    return np.round(np.asarray(x, dtype=np.float64), 6).tolist()


BACKENDS = (
    Backend("numpy", "float64"),
    Backend("numpy", "float32"),
    Backend("torch", "float64"),
    Backend("torch", "float32"),
)


def prefers_torch(fn: Callable[..., Any]) -> bool:
    """Whether the target comes from code that uses torch: then tensors are tried first."""
    if "torch" not in sys.modules:
        return False  # its module would have imported torch by now
    if isinstance(fn, sys.modules["torch"].nn.Module):
        return True
    target = getattr(fn, "__func__", fn)
    scope = getattr(target, "__globals__", {})
    return any(getattr(v, "__name__", "").startswith("torch") for v in scope.values())


def backends_for(fn: Callable[..., Any]) -> list[Backend]:
    """Backends to try, in order; torch ones only when torch is installed."""
    have = torch_available()
    order = [b for b in BACKENDS if b.name == "numpy" or have]
    if prefers_torch(fn):
        order.sort(key=lambda b: b.name != "torch")
    return order


def to_numpy(out: Any, shape: tuple[int, ...]) -> np.ndarray:
    """The target's output as float64 of `shape`, or CallFailed saying what was wrong.

    A pair (output, weights), as many kernels return, counts as its first element.
    """
    if isinstance(out, tuple | list) and out and hasattr(out[0], "shape"):
        out = out[0]
    detach = getattr(out, "detach", None)
    if detach is not None and hasattr(out, "cpu"):  # a torch tensor
        try:
            import torch  # pyright: ignore[reportMissingImports]

            out = detach().cpu().to(torch.float64).numpy()
        except Exception as exc:
            raise CallFailed(f"returned a tensor that cannot be read: {summarize(exc)}") from exc
    if isinstance(out, list):  # nested lists from a pure-Python kernel
        try:
            out = np.asarray(out, dtype=np.float64)
        except (TypeError, ValueError):
            raise CallFailed("returned a list that is not a table of numbers") from None
    if not isinstance(out, np.ndarray):
        raise CallFailed(f"returned {type(out).__name__}, not an array")
    got = tuple(out.shape)
    if got != shape and got == (1, *shape):  # a leading batch of one is fine
        out = out[0]
    if tuple(out.shape) != shape:
        raise CallFailed(f"returned shape {got}, expected {shape}")
    if not (np.issubdtype(out.dtype, np.floating) or np.issubdtype(out.dtype, np.integer)):
        raise CallFailed(f"returned an array of dtype {out.dtype}, not floats")
    return np.asarray(out, dtype=np.float64)


def out_dtype(out: Any) -> Precision:
    """The low precision to measure tolerances in, from the dtype the target returned."""
    dtype = getattr(out, "dtype", None)
    if "bfloat16" in str(dtype):
        return BFLOAT16
    size = getattr(dtype, "itemsize", None)
    if size is None and hasattr(out, "element_size"):
        size = out.element_size()
    return FLOAT16 if size is not None and size <= 2 else FLOAT32


# -- signatures ------------------------------------------------------------------------------


@dataclass
class Signature:
    """What the target's parameters say about how to call it."""

    kind: str | None  # "kernel" | "model" | None when the signature does not tell
    flag: str | None = None  # name of the causal flag parameter
    mask: str | None = None  # name of the mask parameter
    mask_required: bool = False
    positional_only: dict[str, int] = field(default_factory=dict)  # name -> index
    text: str = ""  # the parameters as text, "(q, k, v, causal=False)", for the report


def read_signature(fn: Callable[..., Any]) -> Signature:
    """Kernel, model or unknown, and the names of the causal flag and mask if any."""
    target = fn
    forward = getattr(fn, "forward", None)
    if not inspect.isfunction(fn) and not inspect.ismethod(fn) and callable(forward):
        target = forward  # an nn.Module: its forward says more than __call__
    try:
        sig = inspect.signature(target)
    except (TypeError, ValueError):
        return Signature(None)
    params = list(sig.parameters.values())
    pos = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in pos if p.default is p.empty]
    varargs = any(p.kind is p.VAR_POSITIONAL for p in params)
    names = {p.name: p for p in params}
    flag = next((n for n in FLAG_NAMES if n in names), None)
    mask = next((n for n in MASK_NAMES if n in names), None)
    po = {p.name: i for i, p in enumerate(pos) if p.kind is p.POSITIONAL_ONLY}
    if len(required) >= 3 or (len(pos) >= 3 and not varargs and len(required) != 1):
        kind: str | None = "kernel"
    elif len(required) == 1 and not varargs:
        kind = "model"
    else:
        kind = None
    mask_required = mask is not None and names[mask].default is names[mask].empty
    return Signature(kind, flag, mask, mask_required, po, str(sig))


# -- the mask convention ---------------------------------------------------------------------

MASK_KINDS = {
    "keep": "boolean keep (True = may attend)",
    "block": "boolean block (True = masked out)",
    "additive": "additive float (0 = keep, -inf = block)",
    "ignored": "none: the mask argument has no effect",
}


def make_mask(kind: str, keep: np.ndarray) -> tuple[np.ndarray, str]:
    """The mask array for `keep` (True = may attend) under convention `kind`."""
    if kind == "keep":
        return keep.copy(), "bool"
    if kind == "block":
        return ~keep, "bool"
    return np.where(keep, 0.0, -np.inf), "float"


def looks_empty(out: np.ndarray | None) -> bool:
    """An output with nothing attended: NaN, zeros, or every row the same average."""
    if out is None or not np.isfinite(out).all():
        return True
    return bool(np.allclose(out, out[:1], rtol=1e-6, atol=1e-9))


# -- the target as a kernel ------------------------------------------------------------------


class Kernel:
    """A target called as attention(q, k, v[, causal | mask]): builds the call, reads the result."""

    def __init__(self, runner: Runner, sig: Signature, backend: Backend, name: str) -> None:
        self.runner = runner
        self.sig = sig
        self.backend = backend
        self.name = name
        self.lp = FLOAT32  # the precision tolerances are measured in
        self.mask_kind: str | None = None
        self.always_causal = False  # no flag, but the kernel masks the future by itself
        self.last_lp = FLOAT32
        self.wide = True

    @property
    def has_causal(self) -> bool:
        return self.always_causal or self.sig.flag is not None or self.sig.mask is not None

    def mask_arg(self, n: int, causal: bool) -> tuple[np.ndarray, str] | None:
        """The mask to pass (array, encoding), or None to pass no mask."""
        if self.sig.mask is None or self.sig.flag is not None:
            return None
        if not causal and not self.sig.mask_required:
            return None
        keep = np.tril(np.ones((n, n), dtype=bool)) if causal else np.ones((n, n), dtype=bool)
        return make_mask(self.mask_kind or "keep", keep)

    def call(
        self, q: np.ndarray, k: np.ndarray, v: np.ndarray, causal: bool = False, mask: Any = None
    ) -> np.ndarray:
        """The output as float64 (n, d_v); CallFailed if it raised or returned junk.

        `mask` (array, encoding) overrides the mask derived from `causal`.
        """
        b = self.backend
        args: list[Any] = [b.floats(q), b.floats(k), b.floats(v)]
        extra: dict[str, Any] = {}
        if self.sig.flag is not None and not self.always_causal:
            extra[self.sig.flag] = causal
        m = mask if mask is not None else self.mask_arg(q.shape[-2], causal)
        if m is not None and self.sig.mask is not None:
            extra[self.sig.mask] = b.bools(m[0]) if m[1] == "bool" else b.floats(m[0])
        kwargs: dict[str, Any] = {}
        for name, value in extra.items():
            if name in self.sig.positional_only:
                args.insert(self.sig.positional_only[name], value)
            else:
                kwargs[name] = value
        raw = self.runner(*args, **kwargs)
        first = raw[0] if isinstance(raw, tuple | list) and raw else raw
        self.last_lp = out_dtype(first)
        self.wide = "64" in str(getattr(first, "dtype", ""))  # float64 out: likely float64 inside
        return to_numpy(raw, (*q.shape[:-1], v.shape[-1]))

    def call_text(self, causal: bool) -> str:
        """The call as source text, for the reproductions."""
        parts = ["q", "k", "v"]
        if self.sig.flag is not None and not self.always_causal:
            parts.append(f"{self.sig.flag}={causal}")
        elif self.mask_arg(2, causal) is not None:
            parts.append(f"{self.sig.mask}=mask")
        return f"{self.name}({', '.join(parts)})"

    def mask_text(self, n: int, causal: bool) -> str | None:
        """Source text building the mask used for `causal`, or None when none is passed."""
        if self.mask_arg(n, causal) is None:
            return None
        t = self.backend.name == "torch"
        ones = (
            f"torch.ones({n}, {n}, dtype=torch.bool)" if t else f"np.ones(({n}, {n}), dtype=bool)"
        )
        keep = (f"torch.tril({ones})" if t else f"np.tril({ones})") if causal else ones
        if self.mask_kind == "block":
            return f"mask = ~{keep}"
        if self.mask_kind == "additive":
            if t:
                return f"mask = torch.zeros({n}, {n}).masked_fill(~{keep}, float('-inf'))"
            return f"mask = np.where({keep}, 0.0, -np.inf)"
        return f"mask = {keep}"


def connect(fn: Callable[..., Any], runner: Runner, sig: Signature, name: str) -> Kernel:
    """Find a backend the kernel accepts with one plain call on (6, 6) inputs, or TargetError."""
    rng = np.random.default_rng(0)
    q, k, v = rng.standard_normal((3, 6, 6))
    failures: list[tuple[Backend, str]] = []
    for backend in backends_for(fn):
        kern = Kernel(runner, sig, backend, name)
        try:
            kern.call(q, k, v)
        except CallFailed as exc:
            failures.append((backend, str(exc)))
            continue
        kern.lp = kern.last_lp
        return kern
    raise TargetError(f"{name}(q, k, v) could not be called: {_failed(failures)}")


def _failed(failures: list[tuple[Backend, str]]) -> str:
    """The failures of the first call, said once when every backend failed the same way."""
    whys = list(dict.fromkeys(why for _, why in failures))
    if len(whys) == 1:
        tried = " and ".join(f"{b.name} {b.dtype}" for b, _ in failures)
        return f"{whys[0]} (tried {tried} inputs of shape (6, 6))"
    return "; ".join(f"with {b.name} {b.dtype} inputs: {why}" for b, why in failures[:3])


def detect_mask_kind(kern: Kernel) -> str:
    """Which mask convention the kernel follows, found by probing; one of MASK_KINDS.

    An all-True boolean mask changes nothing for a keep mask and empties every row for a
    block mask; all-False does the opposite. When both change nothing, an additive float
    mask with -inf above the diagonal tells an additive mask from an ignored one.
    """
    rng = np.random.default_rng(7)
    n = 7
    q, k, v = rng.standard_normal((3, n, 5))
    t, f = np.ones((n, n), dtype=bool), np.zeros((n, n), dtype=bool)

    def attempt(mask: tuple[np.ndarray, str] | None) -> np.ndarray | None:
        try:
            return kern.call(q, k, v, mask=mask) if mask is not None else kern.call(q, k, v)
        except CallFailed:
            return None

    def same(a: np.ndarray | None, b: np.ndarray | None) -> bool:
        return a is not None and b is not None and bool(np.allclose(a, b, rtol=1e-5, atol=1e-7))

    out_t, out_f = attempt((t, "bool")), attempt((f, "bool"))
    plain = None if kern.sig.mask_required else attempt(None)
    if plain is not None and (same(out_t, plain) != same(out_f, plain)):
        return "keep" if same(out_t, plain) else "block"
    if plain is None and looks_empty(out_t) != looks_empty(out_f):
        return "block" if looks_empty(out_t) else "keep"
    additive = attempt((np.where(np.tril(t), 0.0, -np.inf), "float"))
    reference = plain if plain is not None else (out_f if out_f is not None else out_t)
    if additive is None:
        if out_t is None and out_f is None:
            raise TargetError("the kernel fails with every kind of mask tried")
        return "keep"
    if reference is None or not same(additive, reference):
        return "additive"
    return "ignored"
