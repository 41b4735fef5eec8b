"""The target as a kernel: building a call on q, k, v (as values or as source text) and
reading its output."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any, cast

import numpy as np

from .frameworks import (
    BACK_TEXT,
    Backend,
    CallFailed,
    answered_in,
    from_layout,
    precision,
    rounded_inside,
    to_layout,
)
from .masks import make_mask
from .reference import CORRECT, FLOAT32, Precision, Variant, tolerance
from .runner import Runner
from .signature import MaskParam, Signature, _number


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


class Kernel:
    """A target called as attention(q, k, v[, causal | mask]): builds the call, reads the result.

    Probes are (n, d) or (batch, heads, n, d) float64 arrays; the kernel sees them in its own
    framework and layout. `flag` or `mask` is what currently carries the causal mask.
    """

    kind = "kernel"
    imp = ""  # the reproductions' import line, once checked

    def source(self) -> list[str]:
        """The import lines every reproduction starts with."""
        own = dict.fromkeys(["import numpy as np", self.backend.framework.imports])
        # a stand-in for the object passed before q, k, v is written as what it answered
        own |= dict.fromkeys(getattr(a, "import_line", "") for a in self.args.values())
        return [*(line for line in own if line), self.imp]

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

    def bind(
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
        return (*self.bind([qs, ks, vs], causal, masks, scale, self.args), (qs, ks, vs))

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
        """Whether the check passes the scale: the kernel requires it, or would read it off the
        stand-in for its module (Gemma 2's `module.head_dim ** -0.5`, where the stand-in's
        guess is no head size), and the caller did not pass it."""
        sig = self.sig
        stood_in = any(hasattr(a, "import_line") for a in self.args.values())
        return bool(sig.scale and (sig.scale_required or stood_in) and sig.scale not in self.args)

    def _read_back(self, raw: Any, shape: tuple[int, ...]) -> None:
        """How a reproduction takes the (n, d) output from what the call returned."""
        self.pair = self.runner.last_pair
        if len(shape) == 2:
            answer = answered_in(tuple(np.shape(raw)), self.layout, shape) or "nd"
            self.back = ("[0]" if self.pair else "") + BACK_TEXT[answer]

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
