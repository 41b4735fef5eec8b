"""Calling the target: timeouts, signatures and argument names, layouts, and mask conventions."""

from __future__ import annotations

import ast
import contextlib
import functools
import inspect
import math
import queue
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeGuard, cast

import numpy as np

from .frameworks import (
    BACK_TEXT,
    IMPORTS,
    LAYOUTS,
    Backend,
    CallFailed,
    Returned,
    answered_in,
    backends_for,
    from_layout,
    layout_text,
    materialize,
    precision,
    rounded_inside,
    summarize,
    to_layout,
)
from .names import named
from .reference import CORRECT, FLOAT32, Precision, Variant, tolerance

__all__ = ["CallFailed", "summarize"]


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
            raise Timeout(
                f"the target did not return within {wait:.3g} s (called with {shapes})"
            ) from None
        if not ok:
            raise CallFailed(summarize(value))
        assert isinstance(value, Returned)
        self.last_dtype = value.dtype
        self.last_pair = value.pair
        return value.value


def _within(context: Any, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    with context():
        return fn(*args, **kwargs)


@dataclass(frozen=True)
class Target:
    """What one check calls: the callable, the runner that calls it, its signature, the name
    reproductions call it by, and what the caller fixed: the layout (None: probed) and extra
    arguments for every call."""

    fn: Callable[..., Any]
    runner: Runner
    sig: Signature
    name: str
    layout: str | None = None
    args: dict[str, Any] = field(default_factory=dict)

    def kernel(self, backend: Backend, layout: str) -> Kernel:
        """The target as a kernel on `backend`, its inputs in `layout`."""
        return Kernel(self.runner, self.sig, backend, self.name, layout, self.args)


def describe(x: Any) -> str:
    """`float64 (7, 5)` for arrays and tensors, the type name otherwise."""
    shape = getattr(x, "shape", None)
    if shape is None:
        return type(x).__name__
    return f"{str(getattr(x, 'dtype', '')).replace('torch.', '')} {tuple(shape)}"


def to_numpy(out: Any, shape: tuple[int, ...], layout: str = "nd") -> np.ndarray:
    """The target's output as float64 of `shape`, or CallFailed saying what was wrong."""
    if isinstance(out, list):  # nested lists from a pure-Python kernel
        try:
            out = np.asarray(out, dtype=np.float64)
        except (TypeError, ValueError):
            raise CallFailed("returned a list that is not a table of numbers") from None
    if not isinstance(out, np.ndarray):
        raise CallFailed(f"returned {type(out).__name__}, not an array")
    out = from_layout(out, layout, shape)
    if out.dtype.kind not in "fiu" and "float" not in str(out.dtype):  # bfloat16 is kind V
        raise CallFailed(f"returned an array of dtype {out.dtype}, not floats")
    return np.asarray(out, dtype=np.float64)


# -- signatures ------------------------------------------------------------------------------


@dataclass
class MaskParam:
    """One mask-like parameter, and what probing it found."""

    name: str
    required: bool
    kind: str | None = None  # a key of MASK_KINDS once probed, or "unusable"
    form: str = "square"  # "square" (n, n) | "batched" (1, [1,] n, n) | "padding" (1, n)
    # an ignored mask that has effect once this option is True (`q_mask` under `use_mask`):
    # a mask of its own kind, not a way to ask for the causal mask
    switch: str | None = None


@dataclass
class Signature:
    """What the target's parameters say about how to call it."""

    kind: str | None  # "kernel" | "model" | None when the signature does not tell
    flag: str | None = None  # name of the causal flag parameter
    masks: list[MaskParam] = field(default_factory=list)
    qkv: tuple[str, str, str] | None = None  # the parameters q, k, v go to; None: positional
    positional_only: list[str] = field(default_factory=list)  # in order
    scale: str | None = None  # a parameter that takes the score scale
    scale_required: bool = False
    required: list[str] = field(default_factory=list)  # required, and nothing above fills them
    text: str = ""  # the parameters as text, "(q, k, v, causal=False)", for the report
    by_name: bool = False  # q, k, v are not the first three parameters, in order
    dropout: str | None = None  # a dropout probability with a default above 0
    softcap: str | None = None  # the parameter that soft-caps the scores (Gemma 2)
    softcap_default: Any = None
    # every named parameter, and whether it is required (a layer's rotation, its start)
    params: dict[str, bool] = field(default_factory=dict)
    # parameters that default to True or False: one may be a causal flag under another name
    switches: list[str] = field(default_factory=list)
    out: str | None = None  # a required buffer the output is written into (kernl's `output`)
    # the positional-only parameters' defaults, passed where a later one is given
    defaults: dict[str, Any] = field(default_factory=dict)


def is_mask_name(name: str) -> bool:
    """`mask`, `attn_mask`, `key_padding_mask`, `attn_bias`: not a dropout mask (`drop_mask`
    multiplies the weights after softmax by design), a query mask or a head mask (Hugging
    Face's `head_mask` scales whole heads, not positions)."""
    low = name.lower()
    return (
        low in named("mask")
        or low in named("bias")
        or ("mask" in low and not any(other in low for other in ("drop", "query", "head")))
    )


Param = inspect.Parameter


def read_signature(fn: Callable[..., Any]) -> Signature:
    """Kernel, model or unknown; which parameters take q, k, v, the flag, masks and scale."""
    sig = _inspected(fn)
    if sig is None:
        return Signature(None)
    pos, names, varargs = _parameters(sig)
    qkv, by_names = _qkv(names, pos, varargs)
    flag = _first(named("causal flag"), names)
    masks = _masks(names, qkv or ())
    scale, softcap = _first(named("scale"), names), _first(named("soft cap"), names)
    required = {n: p.default is p.empty for n, p in names.items()}
    out = _out(names)
    known = {*(qkv or ()), flag, scale, out, *(m.name for m in masks)}
    only = _positional_only(pos)
    return Signature(
        _kind_said(pos, varargs, by_names),
        flag,
        masks,
        qkv,
        list(only),
        scale,
        required.get(cast(str, scale), False),
        _unfilled(required, known) if qkv else [],
        _plain_text(sig),
        qkv is not None and list(qkv) != [p.name for p in pos[:3]],
        next((n for n, p in names.items() if _dropout_default(n, p.default)), None),
        softcap,
        names[softcap].default if softcap else None,
        required,
        _switches(names, known),
        out,
        only,
    )


def _parameters(sig: inspect.Signature) -> tuple[list[Param], dict[str, Param], bool]:
    """The positional parameters, every named one by name, and whether it takes *args."""
    params = list(sig.parameters.values())
    pos = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    names = {p.name: p for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}
    return pos, names, any(p.kind is p.VAR_POSITIONAL for p in params)


def _positional_only(pos: list[Param]) -> dict[str, Any]:
    """The positional-only parameters and their defaults (an autograd Function's `apply`
    takes every argument by position)."""
    return {p.name: p.default for p in pos if p.kind is p.POSITIONAL_ONLY}


def _out(names: dict[str, Param]) -> str | None:
    """A required parameter the kernel writes its output into (kernl's `output`)."""
    return _first(named("out"), {n: p for n, p in names.items() if p.default is p.empty})


def _unfilled(required: dict[str, bool], known: set) -> list[str]:
    """Required parameters that nothing the check passes (q, k, v, flag, scale, masks) fills."""
    return [n for n, r in required.items() if r and n not in known]


def _switches(names: dict[str, Param], known: set) -> list[str]:
    """Parameters defaulting to False: one may be a causal flag under another name."""
    return [n for n, p in names.items() if p.default is False and n not in known]


def _masks(names: dict[str, Param], qkv: tuple[str, ...]) -> list[MaskParam]:
    """The mask parameters: `mask_future=False` is a switch, not a mask."""
    return [
        MaskParam(n, p.default is p.empty)
        for n, p in names.items()
        if is_mask_name(n) and n not in qkv and not isinstance(p.default, bool)
    ]


def _inspected(fn: Callable[..., Any]) -> inspect.Signature | None:
    """The signature that says how `fn` is called: an nn.Module's forward (it says more than
    __call__; a Keras layer's call), an autograd.Function's forward after ctx; None when there
    is none."""
    target = fn
    if not inspect.isfunction(fn) and not inspect.ismethod(fn):
        target = getattr(fn, "forward", fn)
        if _only_varargs(target) and hasattr(fn, "call"):  # a Keras layer, on any backend
            target = cast(Any, fn).call
    function = _autograd_function(fn)
    try:
        sig = inspect.signature(function.forward if function is not None else target)
    except (TypeError, ValueError):
        sig = builtin_signature(target)  # a compiled builtin states it in its docstring
        if sig is None:
            return None
    if function is not None:  # `attention = _attention.apply`: forward's parameters after ctx,
        # by position only: apply hands no keyword to a forward(ctx, ...) (flash-attention's
        # `flash_attn_func(q, k, v, bias=None, causal=False)` called with causal=True raises)
        only = Param.POSITIONAL_ONLY
        params = list(sig.parameters.values())[1:]
        sig = sig.replace(
            parameters=[
                p.replace(kind=only) if p.kind is p.POSITIONAL_OR_KEYWORD else p for p in params
            ]
        )
    return sig


def _only_varargs(fn: Any) -> bool:
    """Whether fn's signature is (*args, **kwargs) and says nothing."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return all(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params)


def _qkv(
    names: dict[str, Param], pos: list[Param], varargs: bool
) -> tuple[tuple[str, str, str] | None, bool]:
    """The parameters q, k, v go to (None: positional), and whether they were found by name.

    By name among the positional parameters when there are three: a keyword-only `key` after
    them is a random key (JAX, equinox), not the keys."""
    lower = {n.lower(): n for n, p in names.items() if len(pos) < 3 or p.kind is not p.KEYWORD_ONLY}
    found = [_first(named(role), lower) for role in "qkv"]
    if all(found):
        q, k, v = (lower[cast(str, f)] for f in found)
        return (q, k, v), True
    if len(pos) >= 3 and not varargs:
        return (pos[0].name, pos[1].name, pos[2].name), False
    return None, False


def _kind_said(pos: list[Param], varargs: bool, by_names: bool) -> str | None:
    """What the parameters say the target is: kernel (q, k, v), model (ids) or unknown."""
    required = [p for p in pos if p.default is p.empty]
    if len(required) >= 3 or by_names or (len(pos) >= 3 and not varargs):
        return "kernel"
    return "model" if len(required) == 1 and not varargs else None


def _first(choices: tuple | list, names: dict[str, Any]) -> str | None:
    """The first of `choices` among `names`."""
    return next((n for n in choices if n in names), None)


def builtin_signature(fn: Any) -> inspect.Signature | None:
    """The signature a compiled builtin states in the first line of its docstring, which
    inspect cannot read (MLX's nanobind `mx.fast.scaled_dot_product_attention(q, k, v, *,
    scale, mask=None)`): parsed as a `def` line, annotations dropped; None when it has none."""
    line = (getattr(fn, "__doc__", None) or "").strip().split("\n")[0]
    line = line.removeprefix("def ").split(" -> ")[0]
    try:
        tree = ast.parse(f"def {line}: pass")
    except SyntaxError:
        return None
    node = tree.body[0]
    if not isinstance(node, ast.FunctionDef):
        return None
    a, P = node.args, inspect.Parameter
    pos = [*a.posonlyargs, *a.args]
    first_default = len(pos) - len(a.defaults)
    params = [
        P(x.arg, P.POSITIONAL_OR_KEYWORD, default=None if i >= first_default else P.empty)
        for i, x in enumerate(pos)
    ]
    params += [
        P(x.arg, P.KEYWORD_ONLY, default=P.empty if d is None else None)
        for x, d in zip(a.kwonlyargs, a.kw_defaults, strict=True)
    ]
    try:
        return inspect.Signature(params)
    except ValueError:
        return None


def _autograd_function(fn: Any) -> Any:
    """The torch.autograd.Function whose `apply` `fn` is (the Triton tutorial's
    `attention = _attention.apply`), whose signature is (*args, **kwargs); else None."""
    owner = getattr(fn, "__self__", None)
    if getattr(fn, "__name__", "") != "apply" or not inspect.isclass(owner):
        return None
    names = {c.__name__ for c in owner.__mro__}
    return owner if "Function" in names and hasattr(owner, "forward") else None


def _number(x: Any) -> TypeGuard[int | float]:
    return isinstance(x, int | float) and not isinstance(x, bool)


def _plain_text(sig: inspect.Signature) -> str:
    """`(query, key, value, bias=None, *, scale=None)`: the parameters without their type
    annotations, which make jax.nn.dot_product_attention's six lines long."""
    bare = [p.replace(annotation=p.empty) for p in sig.parameters.values()]
    return str(sig.replace(parameters=bare, return_annotation=sig.empty))


def _dropout_default(name: str, default: Any) -> bool:
    """`dropout_p=0.1`, `attn_drop=0.1`: a probability of dropping, on unless set to 0."""
    return (
        "drop" in name.lower() and not is_mask_name(name) and _number(default) and 0 < default < 1
    )


# -- the mask convention ---------------------------------------------------------------------

MASK_KINDS = {
    "keep": "boolean keep (True = may attend)",
    "block": "boolean block (True = masked out)",
    "additive": "additive float (0 = keep, -inf = block)",
    "ignored": "none: the mask argument has no effect",
}


def make_mask(kind: str, keep: np.ndarray) -> tuple[np.ndarray, str]:
    """The mask array for `keep` (True = may attend) under convention `kind`."""
    if kind == "block":
        return ~keep, "bool"
    if kind == "additive":
        return np.where(keep, 0.0, -np.inf), "float"
    return keep.copy(), "bool"


def looks_empty(out: np.ndarray | None) -> bool:
    """An output with nothing attended: NaN, zeros, or every row the same average."""
    if out is None or not np.isfinite(out).all():
        return True
    return bool(np.allclose(out, out[:1], rtol=1e-6, atol=1e-9))


# -- the target as a kernel ------------------------------------------------------------------


class Kernel:
    """A target called as attention(q, k, v[, causal | mask]): builds the call, reads the result.

    Probes are (n, d) or (batch, heads, n, d) float64 arrays; the kernel sees them in its own
    framework and layout. `flag` or `mask` is what currently carries the causal mask.
    """

    kind = "kernel"
    imp = ""  # the reproductions' import line, once checked

    def source(self) -> list[str]:
        """The import lines every reproduction starts with."""
        own = [IMPORTS[self.backend.name]] if self.backend.name != "numpy" else []
        return ["import numpy as np", *own, self.imp]

    def __init__(
        self,
        runner: Runner,
        sig: Signature,
        backend: Backend,
        name: str,
        layout: str = "nd",
        args: dict[str, Any] | None = None,
    ) -> None:
        self.runner = runner
        self.sig = sig
        self.backend = backend
        self.name = name
        self.layout = layout
        self.layout_forced = False
        self.args = dict(args or {})  # extra arguments the user passed, by name
        self.masks = {m.name: m for m in sig.masks}
        self.flag = sig.flag
        self.mask: str | None = None if sig.flag else next(iter(self.masks), None)
        self.lp = FLOAT32  # the precision tolerances are measured in
        self.always_causal = False  # no flag, but the kernel masks the future by itself
        self.last_lp = FLOAT32
        # the half precision a float32/64 output was rounded to inside, on the first call
        self.rounded: Precision | None = None
        self.last_rounded: Precision | None = None
        self.wide = True
        self.reference: Variant = CORRECT
        self.pair = False  # the kernel returns (output, weights)
        self.back = ""  # source text taking the (n, d) output from what a call returns
        self.shapes: list[tuple[int, int]] | None = None  # the (n, d) it accepts, if not all
        user_scale = self.args.get(sig.scale) if sig.scale else None
        if _number(user_scale):
            detail = f"softmax({user_scale:g} q k^T) v"
            self.reference = Variant(None, detail, "alpha", p=user_scale)
        cap = self.args.get(sig.softcap, sig.softcap_default) if sig.softcap else None
        if _number(cap) and cap > 0:  # 0 or None: no capping, as in flash-attn and Gemma
            detail = f"{self.reference.detail}, the scores s capped as {cap:g} tanh(s / {cap:g})"
            self.reference = replace(self.reference, detail=detail, cap=float(cap))

    @property
    def mask_kind(self) -> str | None:
        return self.masks[self.mask].kind if self.mask else None

    @property
    def mask_form(self) -> str:
        return self.masks[self.mask].form if self.mask else "square"

    @property
    def modes(self) -> list[bool]:
        """Whether each run of a check has the causal mask: with it only, when the kernel
        always masks; without and with it, when something carries it; else without."""
        if self.always_causal:
            return [True]
        return [False, True] if self.flag is not None or self.mask is not None else [False]

    @contextlib.contextmanager
    def passing(self, **args: Any) -> Iterator[None]:
        """Within: every call also passes `args`; the kernel's own arguments again after."""
        saved = self.args
        self.args = {**saved, **args}
        try:
            yield
        finally:
            self.args = saved

    def drive(self, name: str | None) -> None:
        """Carry the causal mask through parameter `name` (the flag or a mask), or none."""
        self.flag = name if name is not None and name == self.sig.flag else None
        self.mask = name if name in self.masks else None

    def mask_arg(self, n: int, causal: bool) -> tuple[np.ndarray, str] | None:
        """The mask to pass (array, encoding), or None to pass no mask."""
        if self.mask is None or self.flag is not None:
            return None
        param = self.masks[self.mask]
        if not causal and not param.required:
            return None
        keep = np.tril(np.ones((n, n), dtype=bool)) if causal else np.ones((n, n), dtype=bool)
        if param.form == "padding":
            keep = np.ones(n, dtype=bool)
        return make_mask(param.kind or "keep", keep)

    def _shaped(self, param: MaskParam, m: np.ndarray, batch: int) -> np.ndarray:
        if param.form == "padding":  # one row per sequence of the batch
            return np.broadcast_to(m.reshape(1, -1), (batch, m.size)).copy()
        if param.form == "batched":
            return m[None] if self.layout == "bnd" else m[None, None]
        return m

    def _bind(
        self, qkv: list[Any], flag: Any, masks: dict[str, Any], scale: Any, args: dict[str, Any]
    ) -> tuple[list, dict]:
        """The positional and keyword arguments of a call (as values, or as source text): q, k,
        v first or by name, the flag, the masks, the scale when the check passes it, and the
        caller's own arguments; the positional-only ones taken out in order."""
        by_name = self.sig.qkv is not None and self.sig.by_name
        named = dict(zip(self.sig.qkv or (), qkv, strict=True)) if by_name else {}
        if self.flag is not None and not self.always_causal:
            named[self.flag] = flag
        named |= masks
        if self.sig.out:  # a buffer shaped as q, written by the kernel
            named[self.sig.out] = f"{qkv[0]} * 0" if isinstance(qkv[0], str) else qkv[0] * 0
        if self.scale_passed:
            named[cast(str, self.sig.scale)] = scale
        named |= args
        lead = [] if by_name else qkv
        return [*lead, *self._positional(named, len(lead), isinstance(qkv[0], str))], named

    def call(
        self, q: np.ndarray, k: np.ndarray, v: np.ndarray, causal: bool = False, mask: Any = None
    ) -> np.ndarray:
        """The output as float64 (..., n, d_v); CallFailed if it raised or returned junk.

        `mask` (array, encoding) overrides the mask derived from `causal`; "none" passes
        None for the driven mask (or nothing, when it is optional).
        """
        args, kwargs, _ = self.arguments(q, k, v, causal, mask)
        raw = self.runner(*args, **kwargs)
        out = to_numpy(raw, (*q.shape[:-1], v.shape[-1]), self.layout)
        self._read_back(raw, out.shape)
        self.last_lp = precision(self.runner.last_dtype)
        self.last_rounded = None
        if self.last_lp is FLOAT32 and (inside := rounded_inside(out)) is not None:
            self.last_lp, self.last_rounded = inside, inside
        # float64 out and not rounded to half on the way: likely float64 inside
        self.wide = "64" in self.runner.last_dtype and self.last_rounded is None
        return out

    def answer(
        self, q: np.ndarray, k: np.ndarray, v: np.ndarray, causal: bool = False, mask: Any = None
    ) -> np.ndarray | None:
        """The output `call` gives, or None when the call failed."""
        try:
            return self.call(q, k, v, causal, mask)
        except CallFailed:
            return None

    def arguments(
        self, q: np.ndarray, k: np.ndarray, v: np.ndarray, causal: bool = False, mask: Any = None
    ) -> tuple[list, dict, tuple[Any, Any, Any]]:
        """The positional and keyword arguments of the call on (n, d) or batched inputs, in the
        kernel's framework and layout, and q, k, v among them (fresh arrays)."""
        b = self.backend
        masks: dict[str, Any] = {}
        for name, param in self.masks.items():
            m = self._mask_value(name, param, q.shape[-2], causal, mask)
            if m is not None:
                arr = self._shaped(param, m[0], q.shape[0] if q.ndim > 2 else 1)
                masks[name] = b.bools(arr) if m[1] == "bool" else b.floats(arr)
            elif param.required:
                masks[name] = None
        qs, ks, vs = (b.floats(to_layout(x, self.layout)) for x in (q, k, v))
        scale = 1 / math.sqrt(q.shape[-1])
        return (*self._bind([qs, ks, vs], causal, masks, scale, self.args), (qs, ks, vs))

    def _mask_value(
        self, name: str, param: MaskParam, n: int, causal: bool, mask: Any
    ) -> tuple[np.ndarray, str] | None:
        """What mask argument `name` gets on a call of length n: the causal mask (or `mask`)
        when it carries it, a mask that keeps every key when it is required, else None."""
        if name == self.mask and param.kind is None and mask is None:
            return None  # not probed yet: the plain call passes None
        if name == self.mask:
            m = self.mask_arg(n, causal) if mask is None else mask
            return None if isinstance(m, str) else m  # "none": pass None, or nothing
        if param.required and param.kind not in (None, "unusable", "ignored"):
            full = np.ones(n if param.form == "padding" else (n, n), dtype=bool)
            return make_mask(param.kind or "keep", full)
        return None

    @property
    def scale_passed(self) -> bool:
        """Whether the check passes the scale: the kernel requires it and the caller did not."""
        sig = self.sig
        return bool(sig.scale and sig.scale_required and sig.scale not in self.args)

    def _read_back(self, raw: Any, shape: tuple[int, ...]) -> None:
        """How a reproduction takes the (n, d) output from what the call returned."""
        self.pair = self.runner.last_pair
        if len(shape) == 2:
            answer = answered_in(tuple(np.shape(raw)), self.layout, shape) or "nd"
            self.back = ("[0]" if self.pair else "") + BACK_TEXT[answer]

    def call_text(
        self, causal: bool, q: str = "q", k: str = "k", v: str = "v", masked: bool = False
    ) -> str:
        """The call as source text, for the reproductions; `masked`: `mask` is always passed."""
        qkv = [f"{x}{layout_text(self.layout)}" for x in (q, k, v)]
        masks = self._masks_text(causal, masked, q)
        given = {key: repr(value) for key, value in self.args.items()}
        parts, named = self._bind(qkv, str(causal), masks, f"{q}.shape[-1] ** -0.5", given)
        parts += [f"{key}={value}" for key, value in named.items()]
        return f"{self.name}({', '.join(parts)}){self.back}"

    def _masks_text(self, causal: bool, masked: bool, q: str) -> dict[str, str]:
        """The mask arguments as source text: `mask` where the causal mask goes (or always,
        when `masked`), a mask keeping every key where one is required."""
        said = {}
        for name, param in self.masks.items():
            if name == self.mask and (masked or (causal and self.mask_arg(2, True) is not None)):
                said[name] = "mask"
            elif param.required:
                said[name] = self._full_text(param, q)
        return said

    def _positional(self, named: dict[str, Any], start: int, text: bool) -> list[Any]:
        """The positional-only arguments after the first `start`, taken out of `named` in
        order up to the last passed; one not passed before it gets its default."""
        order = self.sig.positional_only[start:]
        passed = [i for i, name in enumerate(order) if name in named]
        parts = []
        for name in order[: passed[-1] + 1 if passed else 0]:
            default = self.sig.defaults[name]
            parts.append(named.pop(name) if name in named else repr(default) if text else default)
        return parts

    def _full_text(self, param: MaskParam, q: str) -> str:
        """Source text for a mask that keeps everything, for a required mask not under test."""
        if param.kind in (None, "unusable", "ignored"):
            return "None"
        lib = self.backend.lib
        size = f"1, {q}.shape[-2]" if param.form == "padding" else f"{q}.shape[-2], {q}.shape[-2]"
        if param.form == "batched":  # (1, 1, n, n), or (1, n, n) beside (1, n, d) inputs
            size = f"1, {size}" if self.layout == "bnd" else f"1, 1, {size}"
        if param.kind == "additive":
            return f"{lib}.zeros(({size}))"
        return f"{'~' if param.kind == 'block' else ''}{lib}.ones(({size}), dtype=bool)"

    def mask_lines(self, n: int, causal: bool) -> list[str]:
        """The line building the causal mask, none when it is not passed (without `causal`,
        a required mask is written out in the call, keeping every key)."""
        if not causal or self.mask_arg(n, causal) is None:
            return []
        lib = self.backend.lib
        if self.mask_form == "padding":
            keep = f"{lib}.ones((1, {n}), dtype=bool)"
        else:
            keep = f"{lib}.tril({lib}.ones(({n}, {n}), dtype=bool))"
            if self.mask_form == "batched":
                keep += "[None]" if self.layout == "bnd" else "[None, None]"
        if self.mask_kind == "additive" and lib == "torch":
            zeros = f"torch.zeros_like({keep}, dtype=torch.float)"
            return [f"mask = {zeros}.masked_fill(~{keep}, float('-inf'))"]
        made = {"block": f"~{keep}", "additive": f"{lib}.where({keep}, 0.0, -{lib}.inf)"}
        wrap = {"tinygrad": "Tensor({})", "mlx": "mx.array({})"}.get(self.backend.name, "{}")
        return ["mask = " + wrap.format(made.get(self.mask_kind or "keep", keep))]

    def weights_rounded(self, q: np.ndarray, k: np.ndarray) -> Precision | None:
        """The half precision the weights are rounded to inside a wide kernel, or None.

        With the identity for v the output is the weights themselves: a kernel that rounds
        them to float16 and multiplies by v in float32 shows the half grid only here.
        """
        if self.last_lp is not FLOAT32 or q.shape[0] != q.shape[1]:
            return None
        return None if self.answer(q, k, np.eye(q.shape[0])) is None else self.last_rounded

    def mixes(self, q: np.ndarray, k: np.ndarray, v: np.ndarray, out: np.ndarray) -> bool:
        """Whether outputs depend on other positions: false when the layout put the positions
        on an axis the kernel treats as batch or heads."""
        rng = np.random.default_rng(3)
        for at, others in ((0, slice(1, None)), (-1, slice(None, -1))):
            k2, v2 = k.copy(), v.copy()
            k2[at] = rng.standard_normal(k.shape[-1]) * 2
            v2[at] = rng.standard_normal(v.shape[-1]) * 2
            got = self.answer(q, k2, v2)
            moved = np.abs(got[others] - out[others]) if got is not None else 0.0
            if np.nanmax(moved, initial=0.0) > tolerance(q, k, v, self.lp):
                return True
        return False


def connect(t: Target) -> Kernel:
    """Find a framework and layout the kernel accepts on (6, 6) inputs, or TargetError."""
    _needs_nothing_more(t.sig, t.name, t.args)
    failures: list[tuple[str, str]] = []
    q, k, v = np.random.default_rng(0).standard_normal((3, 6, 6))

    def ran(kern: Kernel) -> tuple[np.ndarray, ...] | str:
        try:
            out = _first_call(kern, q, k, v)
        except CallFailed as exc:
            failures.append((f"{kern.backend.label} {to_layout(q, kern.layout).shape}", str(exc)))
            return str(exc)
        kern.rounded = kern.last_rounded or kern.weights_rounded(q, k)
        kern.lp = kern.rounded or kern.last_lp
        kern.layout_forced = t.layout is not None
        return q, k, v, out

    for backend in backends_for(t.fn):
        kern = mixing(t, backend, [t.layout] if t.layout else list(LAYOUTS), ran)
        if kern is not None:
            return kern
    raise TargetError(f"{t.name}(q, k, v) could not be called: {_failed(failures)}")


def _needs_nothing_more(sig: Signature, name: str, args: dict[str, Any]) -> None:
    """TargetError when the kernel requires arguments the checker cannot make up."""
    missing = [p for p in sig.required if p not in args]
    if not missing:
        return
    says = ", ".join(f"`{p}`" for p in missing)
    example = " ".join(f"--arg {p}=VALUE" for p in missing)
    raise TargetError(
        f"{name} needs {says}, which the checker cannot make up: pass "
        f"{'it' if len(missing) == 1 else 'them'} with {example} (in Python: "
        f"check(fn, args={{{', '.join(repr(p) + ': ...' for p in missing)}}}))"
    )


def mixing(
    t: Target,
    backend: Backend,
    layouts: Sequence[str],
    ran: Callable[[Kernel], tuple[np.ndarray, ...] | str],
) -> Kernel | None:
    """The kernel on `backend` in the first of `layouts` it runs in (`ran`: q, k, v and the
    output, or why not) whose outputs mix positions, else in the first it runs in; None when
    it runs in none. With one layout (forced), that one if it runs.

    Mixing decides because a (b, n, h, d) kernel given (1, 1, n, d) runs, but treats each
    position as a head of its own, and every later probe of the check would be of that."""
    first: Kernel | None = None
    for lay in layouts:
        kern = t.kernel(backend, lay)
        got = ran(kern)
        if isinstance(got, str):
            continue
        if len(layouts) == 1 or kern.mixes(*got):
            return kern
        first = first or kern
    return first


def _first_call(kern: Kernel, q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
    """The plain call; when it fails on a required mask passed as None, the mask's convention
    is probed and the call made again with a mask that keeps every key (picoGPT's
    `attention(q, k, v, mask)` adds its mask to the scores, and cannot add None)."""
    try:
        return kern.call(q, k, v)
    except CallFailed:
        unprobed = [m for m in kern.masks.values() if m.required and m.kind is None]
        if not unprobed:
            raise
    try:
        for param in unprobed:
            probe_mask(kern, param)
        return kern.call(q, k, v)
    except CallFailed:
        for param in unprobed:  # another layout may take None after all
            param.kind, param.form = None, "square"
        raise


def _failed(failures: list[tuple[str, str]]) -> str:
    """The failures of the first call, said once when every attempt failed the same way."""
    whys = list(dict.fromkeys(why for _, why in failures))
    if len(whys) == 1:
        return f"{whys[0]} (tried {', '.join(how for how, _ in failures)} inputs)"
    return "; ".join(f"with {how} inputs: {why}" for how, why in failures[:3])


# -- probing the mask parameters -------------------------------------------------------------

FORMS = ("square", "batched", "padding")


def probe_mask(kern: Kernel, param: MaskParam, layouts: tuple[str, ...] = ()) -> None:
    """Find the shape and the convention of mask parameter `param`, by probing.

    Shape: an (n, n) mask first, then (1, 1, n, n) (or (1, n, n)), then a (1, n) key-padding
    mask. Convention: an all-True boolean mask changes nothing for a keep mask and empties
    every row for a block mask; all-False does the opposite. When both change nothing, an
    additive float mask with -inf on some keys tells an additive mask from an ignored one.
    Outputs are compared within the kernel's own precision: torch adds a boolean mask as +1 on
    every score, invisible in float32 but not in float16.

    When no mask shape works in the kernel's layout, `layouts` are tried next: a key-padding
    mask indexed [:, None, None, :] needs 4-D scores even if the rest runs on (n, d).
    """
    saved = kern.flag, kern.mask, kern.layout
    kern.drive(param.name)
    try:
        for layout in (kern.layout, *(x for x in layouts if x != kern.layout)):
            kern.layout = layout
            param.kind = _probe(kern, param)
            if param.kind != "unusable":
                saved = (*saved[:2], layout)
                param.switch = _switched_on_by(kern, param) if param.kind == "ignored" else None
                return
    finally:
        kern.flag, kern.mask, kern.layout = saved


def _switched_on_by(kern: Kernel, param: MaskParam) -> str | None:
    """The option (a parameter defaulting to False) under which a mask argument that changes
    nothing by itself takes effect: with it True, an all-False mask of the form that was
    accepted changes the output or makes the call fail, where no mask does neither."""
    rng = np.random.default_rng(7)
    q, k, v = rng.standard_normal((3, 7, 5))
    empty = (np.zeros(7 if param.form == "padding" else (7, 7), dtype=bool), "bool")
    for switch in kern.sig.switches:
        if switch in kern.args or switch == kern.sig.flag:
            continue
        try:
            with kern.passing(**{switch: True}):
                plain = kern.call(q, k, v, mask="none")
                try:
                    masked = kern.call(q, k, v, mask=empty)
                except CallFailed:
                    return switch
        except CallFailed:
            continue
        if not np.allclose(plain, masked, equal_nan=True):
            return switch
    return None


def _probe(kern: Kernel, param: MaskParam) -> str:
    rng = np.random.default_rng(7)
    n = 7
    q, k, v = rng.standard_normal((3, n, 5))

    def attempt(mask: tuple[np.ndarray, str] | str) -> np.ndarray | None:
        return kern.answer(q, k, v, mask=mask)

    out_t = _form(param, n, attempt)
    if out_t is None:
        return "unusable"
    size = n if param.form == "padding" else (n, n)
    # the last two keys blocked for every query: seen also by a kernel that is causal anyway
    pattern = np.broadcast_to(np.arange(n) < n - 2, size)
    tol = tolerance(q, k, v, kern.lp)
    outs = {
        "all": out_t,
        "none": attempt((np.zeros(size, dtype=bool), "bool")),
        "plain": attempt("none"),
    }
    return _convention(outs, lambda: attempt((np.where(pattern, 0.0, -np.inf), "float")), tol)


def _form(param: MaskParam, n: int, attempt: Callable[[Any], Any]) -> Any:
    """The output with an all-True mask in the first form the kernel takes (`param.form`),
    or None when it takes none."""
    for form in FORMS:
        param.form = form
        out = attempt((np.ones(n if form == "padding" else (n, n), dtype=bool), "bool"))
        if out is not None and (form == "padding" or _rows_read(n, attempt, out)):
            return out
    param.form = "square"
    return None


def _rows_read(n: int, attempt: Callable[[Any], Any], out_t: np.ndarray) -> bool:
    """Whether an (n, n) mask the kernel takes is read a row per query: one key changed in the
    last row alone moves the output when changing every entry does. A (batch, n) key mask
    handed (n, n) reads row 0 as batch 0's and ignores the rest (lucidrains'
    flash-attention-jax `key_mask`), so a causal mask there is wrongly read."""
    one = np.ones((n, n), dtype=bool)
    one[-1, 0] = False
    outs = [attempt((m, "bool")) for m in (one, np.zeros((n, n), dtype=bool))]
    if any(o is None for o in outs):
        return True
    moved = [not np.allclose(o, out_t, equal_nan=True) for o in outs]
    return moved[0] or not moved[1]


def _convention(outs: dict[str, Any], additive: Callable[[], Any], tol: float) -> str:
    """keep, block, additive or ignored, from the outputs with every key kept (`all`), none
    (`none`), no mask (`plain`), and a float mask hiding two keys (`additive()`)."""
    out_t, out_f, plain = outs["all"], outs["none"], outs["plain"]

    def same(a: np.ndarray | None, b: np.ndarray | None) -> bool:
        return a is not None and b is not None and float(np.max(np.abs(a - b))) <= tol

    # the one that moved must have emptied the rows: a mask added as a bias (True = +1 on every
    # score) moves them too when the softmax is not shift-invariant (an extra zero logit)
    kept = same(out_t, plain)
    if plain is not None and kept != same(out_f, plain) and looks_empty(out_f if kept else out_t):
        return "keep" if kept else "block"
    if plain is None and looks_empty(out_t) != looks_empty(out_f):
        return "block" if looks_empty(out_t) else "keep"
    added = additive()
    reference = plain if plain is not None else (out_f if out_f is not None else out_t)
    if added is None:
        return "keep"
    if reference is None or not same(added, reference):
        return "additive"
    return "ignored"
