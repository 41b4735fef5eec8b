"""Reading the target's signature: which parameters take q, k, v, the causal flag, masks,
the scale and the rest."""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeGuard, cast

from .names import named


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
