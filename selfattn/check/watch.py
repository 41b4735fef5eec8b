"""Recording a torch layer's calls as it runs once (a TorchFunctionMode): the tensors each
torch function and Tensor method is handed, kept as the maps in and out, the scores, their
scale and softmax axis, and the head count (trace.py reads the layer from them)."""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass, field
from typing import Any

from .projections import Affine, Norm, _read, as_float64
from .signature import _inspected

# calls that pass x on unchanged in meaning: the maps in may be applied to what they return
PASS_ON = {"view", "reshape", "contiguous", "layer_norm", "rms_norm", "group_norm", "to", "float"}
PASS_ON |= {"type", "type_as"}
VIEWS = {"transpose", "permute", "__getitem__", "unbind", "chunk", "split", "mT"}
UNIT_KEPT = PASS_ON | VIEWS | {"unsqueeze", "expand", "repeat_interleave"}  # keep length 1
# x padded, rolled and cut into windows (torchvision's Swin), or turned to (B, C, n) for a GroupNorm
X_KEPT = PASS_ON | {"pad", "roll", "permute", "transpose"}
SOFTMAX = {"softmax", "_softmax", "scaled_dot_product_attention"}
# a factor of q or k taken on through these keeps its scale; a number times it scales it
SCALERS = {"mul", "__mul__", "__rmul__", "multiply"}
DIVIDERS = {"div", "__truediv__", "true_divide", "divide"}
PRODUCTS = {"matmul", "__matmul__", "bmm", "baddbmm"}  # scores' last axis: the keys'


@dataclass
class Seen:
    """What one run of the layer on x showed."""

    maps_in: list[tuple[str, Affine]] = field(default_factory=list)  # in the order applied
    map_out: tuple[str, Affine] | None = None
    heads: int = 0  # 0: no softmax or fused attention was seen
    inputs: int = 1  # x given once, twice (x, context) or three times (q, k, v)
    image: bool = False  # x given as an image (batch, H, W, C), here (1, 5, 1, width)
    channels_first: bool = False  # x given as an image (batch, C, H, W), here (1, width, 1, 5)
    norm: Norm | None = None  # the GroupNorm x went through (an image layer's), as the run showed
    # the maps in (indexes into maps_in) q, k and v come from, as the computation used them
    roles: list[frozenset[int]] = field(default_factory=list)
    cosine: tuple[float, ...] = ()  # scores = t_h cos(q, k) in head h, scaled cosine; (): not
    # the scale of the scores, q k^T times it, q and k as they came from their maps and heads
    # (scaled before or after the product); None: not read
    scale: float | None = None
    axis: str = ""  # what the softmax normalises over, "keys" or "queries"; "": not read
    marked: bool = False  # a marker handed in for an argument went into the scores
    # it called F.multi_head_attention_forward, whose insides the trace cannot see (fairseq)
    handed: bool = False
    time_first: bool = False  # the softmax normalised x's first axis: x read as (n, batch, C)


def _name(func: Any) -> str:
    return getattr(func, "__name__", "")


def watch(
    module: Any, x: Any, times: int, marker: dict[str, Any] | None = None, n: int = 0
) -> Seen:
    """Run the layer once on x given `times` times, as `module(x)`, `module(x, x)` (x and its
    context, cross-attention used as self-attention) or `module(x, x, x)` (q, k, v), and read
    what it computed; `marker`, one argument by name whose way into the scores is followed.
    Call on the worker thread."""
    import torch  # pyright: ignore[reportMissingImports]
    from torch.overrides import TorchFunctionMode  # pyright: ignore[reportMissingImports]

    watcher = _Watcher(module, x, times, n or x.shape[1])
    watcher.marked = {id(t) for t in (marker or {}).values()}

    class Record(TorchFunctionMode):
        def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None):
            out = func(*args, **(kwargs or {}))
            watcher.saw(_name(func), args, kwargs or {}, out)
            return out

    keywords = keywords_of(module)  # forward(*, query, key, value): x handed by name
    given = {**dict.fromkeys((keywords or required_of(module))[times:]), **(marker or {})}
    with Record(), torch.no_grad():
        module(*[] if keywords else [x] * times, **dict.fromkeys(keywords[:times], x), **given)
    return watcher.seen


class _Watcher:
    """Follows each tensor back to the maps in it comes from (by id: every tensor is kept
    alive until the run ends, so no id is reused), to tell q, k and v apart by their part in
    the computation: the product that feeds the softmax takes q then k, the one that consumes
    its weights takes v."""

    def __init__(self, module: Any, x: Any, times: int, n: int) -> None:
        self.names = {id(p): n for n, p in module.named_parameters()}
        self.seen = Seen(inputs=times)
        self.xs = {id(x)}  # x, and x viewed or normalised
        self.batch, self.n = len(x), n  # x's length, also when given as an image
        self.origin: dict[int, frozenset[int]] = {}  # tensor -> indexes of its maps in
        self.made: dict[int, list[Any]] = {}  # tensor -> the tensors it was computed from
        self.weights: set[int] = set()  # the softmax's output, and what passes it on
        self.unit: set[int] = set()  # q or k normalised to length 1, and views of them
        self.kept: list[Any] = []
        self.ops: dict[int, tuple[str, Any, dict[str, Any]]] = {}  # tensor -> the call made it
        self.marked: set[int] = set()  # the marker, and what it became alone
        self.unbiased: dict[int, int] = {}  # a map's output -> the map (-1: out), bias unseen

    def saw(self, name: str, args: Any, kwargs: dict[str, Any], out: Any) -> None:
        given = [a for a in (*args, *kwargs.values()) if _is_tensor(a)]
        outs = [o for o in (out if isinstance(out, tuple | list) else [out]) if _is_tensor(o)]
        self.kept += [*given, *outs]
        self.seen.handed |= name == "multi_head_attention_forward"
        first: Any = args[0] if args else None
        if name in X_KEPT and id(first) in self.xs:
            self.xs.update(id(o) for o in outs)
            self.seen.norm = _group_norm(args, kwargs) if name == "group_norm" else self.seen.norm
        elif name in SOFTMAX and _is_tensor(first) and first.ndim >= 3:
            self._attention(name, args, kwargs, outs)
        elif self._mapped(name, args, kwargs, outs):
            return
        self._follow(name, given, outs, (name, args, kwargs))

    def _mapped(self, name: str, args: Any, kwargs: dict[str, Any], outs: list[Any]) -> bool:
        """Whether the call applies one of the layer's maps, or adds the bias of one."""
        if (found := _weight(name, _positional_args(name, args, kwargs), self.names)) is not None:
            self._map(found, outs)
            return True
        if (bias := self._bias(name, args, outs)) is not None:
            self._biased(*bias)
            return True
        return False

    def _follow(self, name: str, given: list[Any], outs: list[Any], call: Any = None) -> None:
        self._note_outputs(name, given, outs, call)
        if len(given) == 1 and id(given[0]) in self.marked:  # `~mask`, `mask[:, None]`
            self.marked.update(id(o) for o in outs)
        if self._keeps_unit(name, given):
            self.unit.update(id(o) for o in outs)
        if any(id(t) in self.weights for t in given):
            self._after_softmax(given, outs)

    def _note_outputs(self, name: str, given: list[Any], outs: list[Any], call: Any) -> None:
        """Each new output's maps in (its inputs'), its inputs and the call that made it."""
        origin = frozenset().union(*(self.origin.get(id(t), frozenset()) for t in given))
        for o in outs:
            if not any(o is t for t in given):  # `.float()` of a float tensor returns it
                self.origin[id(o)], self.made[id(o)] = origin, given
                self.ops[id(o)] = call or (name, (), {})

    def _keeps_unit(self, name: str, given: list[Any]) -> bool:
        """Whether the call's outputs are q or k normalised, or a view of them, or them times
        a number (x-transformers' qk_norm multiplies by 1): cosine scores up to a factor."""
        if not given:
            return False
        kept = name in UNIT_KEPT or (name in SCALERS and len(given) == 1)
        return name == "normalize" or (id(given[0]) in self.unit and kept)

    def _after_softmax(self, given: list[Any], outs: list[Any]) -> None:
        """The call that takes the weights and a tensor from a map in is weights @ v; before
        it, dropout or a cast hands the weights on."""
        other = [self.origin.get(id(t)) for t in given if id(t) not in self.weights]
        if len(self.seen.roles) == 2 and any(other):
            self.seen.roles.append(next(o for o in other if o))
        else:
            self.weights.update(id(o) for o in outs)

    def _map(self, found: tuple[Any, str, Affine], outs: list[Any]) -> None:
        inp, label, affine = found
        if id(inp) in self.xs and not self.weights and not self.seen.heads:
            for o in outs:
                self.origin[id(o)] = frozenset([len(self.seen.maps_in)])
                self.unbiased[id(o)] = len(self.seen.maps_in)
            self.seen.maps_in.append((label, affine))
        elif self.seen.heads and id(inp) not in self.xs:  # not the next head's map of x
            self.seen.map_out = (label, affine)  # the last one wins
            self.unbiased.update((id(o), -1) for o in outs)

    def _bias(self, name: str, args: Any, outs: list[Any]) -> tuple[int, Any, Any] | None:
        """(which map, its bias, the sum) for `map(x) + bias`, a bias added after a map that
        had none of its own (Keras's EinsumDense); -1 names the map out."""
        if name not in ("add", "__add__") or len(args) < 2 or len(outs) != 1:
            return None
        made, bias = args[0], args[1]
        if id(made) not in self.unbiased or id(bias) not in self.names:
            return None
        return self.unbiased[id(made)], bias, outs[0]

    def _biased(self, index: int, bias: Any, out: Any) -> None:
        label, affine = self.seen.maps_in[index] if index >= 0 else self.seen.map_out or ("", None)
        b = as_float64(bias).reshape(-1)
        if affine is None or b.shape != affine.b.shape or affine.b.any():
            return
        if index >= 0:
            self.seen.maps_in[index] = (label, Affine(affine.w, b))
            self.origin[id(out)] = frozenset([index])
        else:
            self.seen.map_out = (label, Affine(affine.w, b))

    def _attention(self, name: str, args: Any, kwargs: dict[str, Any], outs: list[Any]) -> None:
        first = args[0]
        fused = name == "scaled_dot_product_attention"  # its first is q, not the scores
        self.seen.heads += self._heads(first, fused)
        if self.seen.roles:
            return  # heads computed one by one: the first one tells
        if fused:
            self.seen.roles = [self.origin.get(id(t), frozenset()) for t in args[:3]]
            self._fused_scale(args, kwargs)
            return
        factors, product = self._product(first)
        factors = _queries_first(self.ops.get(id(product)), factors)
        self.seen.roles = [self.origin[id(f)] for f in factors]
        self.weights.update(id(o) for o in outs)
        if factors and all(id(f) in self.unit for f in factors):
            q, k = factors  # k as (d, n) after a product, as (n, d) into an einsum
            k = k if self._op(product) in PRODUCTS else k.transpose(-2, -1)
            self.seen.cosine = _temperature(first, q, k)
        elif factors:
            self.seen.heads = _einsum_heads(self.ops.get(id(product)), first) or self.seen.heads
            self._rows(first, args, kwargs)
            self._scale(first, product, factors)
            self.seen.axis = _axis(first, args, kwargs) if self._op(product) in PRODUCTS else ""

    def _heads(self, first: Any, fused: bool) -> int:
        """The heads in one softmax's scores (batch, heads, n, n) or (batch * heads, n, n), or
        SDPA's q (batch, heads, n, d); scores with keys and queries on other axes hold as many
        heads as (n, n) blocks (Apple's ANE: (batch, n, 1, n))."""
        n = self.n
        if not fused and tuple(first.shape[-2:]) != (n, n) and first.shape.count(n) >= 2:
            return first.numel() // (self.batch * n * n)
        return int(first.shape[-3] if first.ndim >= 4 else first.shape[0] // self.batch)

    def _rows(self, scores: Any, args: Any, kwargs: dict[str, Any]) -> None:
        """Notes whether the softmax mixed x's first axis (length batch, here 1), not its
        second (n): the layer reads x as (n, batch, C), whatever it says (labml.ai's)."""
        dim = _dim(args, kwargs)
        if isinstance(dim, int) and self.n != self.batch:
            self.seen.time_first = scores.shape[dim] == self.batch

    def _product(self, scores: Any) -> tuple[list[Any], Any]:
        """The two factors of the product the scores come from, q's then k's, and the
        product; whether a marker went into the scores on the way."""
        t = scores
        for _ in range(8):  # back through scaling, masking, casting
            parts = self.made.get(id(t), [])
            self.seen.marked |= any(id(p) in self.marked for p in parts)
            mapped = [p for p in parts if self.origin.get(id(p))]
            if len(mapped) >= 2:
                return mapped[:2], t
            if not mapped:
                return [], None
            t = mapped[0]
        return [], None

    def _op(self, t: Any) -> str:
        return self.ops.get(id(t), ("", (), {}))[0]

    def _scale(self, scores: Any, product: Any, factors: list[Any]) -> None:
        """The scores over q k^T: what scales them after the product (as the values show),
        times what scaled each factor before it (as the calls show)."""
        after = _ratio(scores, product)
        name, _, kwargs = self.ops.get(id(product), ("", (), {}))
        alpha = kwargs.get("alpha", 1.0) if name == "baddbmm" else 1.0
        before = [self._scaled(f) for f in factors]
        if after is not None and None not in before and number(alpha):
            self.seen.scale = after * float(alpha) * before[0] * before[1]  # type: ignore[operator]

    def _fused_scale(self, args: Any, kwargs: dict[str, Any]) -> None:
        """F.scaled_dot_product_attention's scale (1/sqrt(d) unless given), times what scaled
        q and k before it."""
        given = kwargs.get("scale", args[6] if len(args) > 6 else None)
        scale = given if number(given) else args[0].shape[-1] ** -0.5
        before = [self._scaled(f) for f in args[:2]]
        if None not in before:
            self.seen.scale = float(scale) * before[0] * before[1]  # type: ignore[operator]

    def _scaled(self, t: Any) -> float | None:
        """What a factor of the scores was multiplied by since its map (views and numbers);
        None when something else came between that cannot be read as a number."""
        scale = 1.0
        for _ in range(24):
            name, args, _ = self.ops.get(id(t), ("", (), {}))
            if name in PASS_ON | VIEWS or (name in DIVIDERS | SCALERS and _is_tensor(args[0])):
                other = args[1] if name in DIVIDERS | SCALERS and len(args) > 1 else None
                if other is not None and not number(other):
                    return scale  # scaled by a tensor: q rotated, masked; the rest is q's
                scale *= (
                    1.0 if other is None else 1 / float(other) if name in DIVIDERS else float(other)
                )
                t = args[0]
                continue
            return scale
        return None


def _temperature(scores: Any, q: Any, k: Any) -> tuple[float, ...]:
    """The scale t_h of scores = t_h * cosine(q, k) in each head h (Swin v2's clamped
    `logit_scale`, learned per head, so the heads' differ once trained); () when the ratio is
    not constant over a head's unmasked scores or not positive."""
    cos = (q / q.norm(dim=-1, keepdim=True)) @ (k / k.norm(dim=-2, keepdim=True))
    ratio = (scores / cos).where(scores.abs() < 1e3, float("nan"))  # masked: left out
    ratio = ratio.reshape(-1, scores.shape[-2] * scores.shape[-1])  # batch of 1
    per_head = ratio.nanmedian(dim=-1).values
    big = per_head.abs().clamp(min=1.0)[:, None]
    same = bool(((ratio - per_head[:, None]).abs() <= 1e-4 * big).logical_or(ratio.isnan()).all())
    return tuple(float(t) for t in per_head) if same and bool((per_head > 0).all()) else ()


def _is_tensor(x: Any) -> bool:
    return hasattr(x, "shape") and hasattr(x, "detach")


def number(x: Any) -> bool:
    """A Python number or a tensor holding one value (a scale kept as a buffer)."""
    if _is_tensor(x):
        return x.numel() == 1
    return isinstance(x, int | float) and not isinstance(x, bool)


def _ratio(scores: Any, product: Any) -> float | None:
    """The one number the scores are the product times, over the entries no mask reached
    (finite, and not pushed far down); None when the ratio is not one number."""
    s, p = scores.detach().double(), product.detach().double()
    if s.shape != p.shape:
        return None
    ok = s.isfinite() & (s.abs() < 1e3) & (p.abs() > 1e-3 * p.abs().max())
    if not bool(ok.any()):
        return None
    ratio = s[ok] / p[ok]
    mid = ratio.median()
    return float(mid) if bool(((ratio - mid).abs() <= 1e-3 * mid.abs()).all()) else None


def _subscripts(args: Any) -> tuple[str, str, str] | None:
    """An einsum's subscripts, its two operands' and its output's ("ibhd,jbhd->ijbh": ibhd,
    jbhd, ijbh), from its arguments; None when they are not of that form."""
    equation = args[0] if args else None
    if not isinstance(equation, str) or "->" not in equation:
        return None
    given, out = equation.replace(" ", "").split("->")
    operands = given.split(",")
    return (operands[0], operands[1], out) if len(operands) == 2 else None


def _einsum_of(call: Any) -> tuple[str, str, str] | None:
    """The subscripts of the einsum call that made a tensor (an entry of `_Watcher.ops`)."""
    name, args, _ = call or ("", (), {})
    return _subscripts(args) if name == "einsum" else None


def _einsum_heads(call: Any, scores: Any) -> int:
    """The head count of scores made by einsum (labml.ai's "ibhd,jbhd->ijbh"): the length of
    the axis q and k both keep that sits nearest the one they sum over; 0: not an einsum."""
    if (found := _einsum_of(call)) is None:
        return 0
    q, k, out = found
    summed = [c for c in q if c in k and c not in out]
    kept = [c for c in q if c in k and c in out]
    if len(summed) != 1 or not kept:
        return 0
    nearest = min(kept, key=lambda c: abs(q.index(c) - q.index(summed[0])))
    return int(scores.shape[out.index(nearest)]) if len(out) == scores.ndim else 0


def _queries_first(call: Any, factors: list[Any]) -> list[Any]:
    """The factors of an einsum's scores, q's first: the one that brings the scores' rows
    (Keras's einsum("aecd,abcd->acbe", k, q) takes k first)."""
    if (found := _einsum_of(call)) is None or len(factors) != 2:
        return factors
    first, second, out = found
    rows = out[-2:-1]
    return factors[::-1] if rows and rows in second and rows not in first else factors


def _dim(args: Any, kwargs: dict[str, Any]) -> Any:
    """The axis a softmax call was given, by keyword or second (`softmax(s, -1)`), or None."""
    return kwargs.get("dim", args[1] if len(args) > 1 else None)


def _axis(scores: Any, args: Any, kwargs: dict[str, Any]) -> str:
    """What a softmax over q k^T normalises: the keys (its last axis) or the queries."""
    dim = _dim(args, kwargs)
    if not isinstance(dim, int):
        return ""
    dim %= scores.ndim
    return "keys" if dim == scores.ndim - 1 else "queries" if dim == scores.ndim - 2 else ""


# the parameters of the maps a layer may apply, in order, for a call that names them
# (Swin v2's F.linear(input=x, weight=w, bias=b))
MAP_PARAMS = {n: ("input", "weight", "bias") for n in ("linear", "conv1d", "conv2d")}


def _positional_args(name: str, args: Any, kwargs: dict[str, Any]) -> tuple[Any, ...]:
    names = MAP_PARAMS.get(name, ())
    given = list(args)
    for n in names[len(given) :]:
        if n not in kwargs:
            break
        given.append(kwargs[n])
    return tuple(given)


# where each op that maps x keeps x, its weight and its bias: F.linear(x, w, b), a 1 x 1
# convolution (x, w, b) of an image layer, and GPT-2 Conv1D's addmm(b, x, w)
OPERANDS = {"linear": (0, 1, 2), "conv1d": (0, 1, 2), "conv2d": (0, 1, 2), "addmm": (1, 2, 0)}
# x @ w, a weight stored (in, out) with its bias added after (Keras's Dense)
OPERANDS |= {"matmul": (0, 1, 2), "__matmul__": (0, 1, 2)}
IN_BY_OUT = {"addmm", "matmul", "__matmul__"}


def _weight(name: str, args: Any, names: dict[int, str]) -> tuple[Any, str, Affine] | None:
    """(input, parameter name, map) for an op of OPERANDS whose weight is one of the layer's
    parameters."""
    if name == "einsum":
        return _einsum_map(args, names)
    if name not in OPERANDS:
        return None
    xi, wi, bi = OPERANDS[name]
    if len(args) <= max(xi, wi) or id(args[wi]) not in names:
        return None
    w = args[wi]
    if name.startswith("conv"):
        if w.ndim < 3 or any(s != 1 for s in w.shape[2:]):
            return None  # a convolution that mixes neighbouring positions is not a map of x
        w = w.flatten(1)
    affine = _read(w, args[bi] if len(args) > bi else None, stored_in_by_out=name in IN_BY_OUT)
    return (args[xi], _label(names[id(args[wi])]), affine) if affine else None


def _einsum_map(args: Any, names: dict[int, str]) -> tuple[Any, str, Affine] | None:
    """(input, parameter name, map) for `einsum("abc,cde->abde", x, kernel)`, Keras's
    EinsumDense: the axes x and the kernel sum over end x's and begin the kernel's; the
    kernel's other axes, flattened, are the map's outputs (heads then head size)."""
    if len(args) != 3 or (found := _subscripts(args)) is None:
        return None
    (held, own, out), x, kernel = found, args[1], args[2]
    if id(kernel) not in names or not _is_tensor(x):
        return None
    summed = [c for c in own if c in held and c not in out]
    k = len(summed)
    if not k or own[:k] != "".join(summed) or held[-k:] != own[:k] or held[:-k] + own[k:] != out:
        return None
    w = kernel.detach().reshape(math.prod(kernel.shape[:k]), -1)
    affine = _read(w, None, stored_in_by_out=True)
    return (x, _label(names[id(kernel)]), affine) if affine else None


def _label(name: str) -> str:
    """A map's name for the report: `c_attn` for `c_attn.weight`, and `query` for Keras's
    `_query_dense._torch_params.<layer>/query/kernel` (on torch)."""
    return name.split("/")[-2] if "/" in name else name.removesuffix(".weight")


def _group_norm(args: Any, kwargs: dict[str, Any]) -> Norm | None:
    """F.group_norm(x, groups, weight, bias, eps) as a Norm over positions and channels."""
    given = [*args, *kwargs.values()]
    groups, weight, bias = (given[i] if len(given) > i else None for i in (1, 2, 3))
    eps = given[4] if len(given) > 4 else 1e-5
    if not isinstance(groups, int) or weight is None or bias is None:
        return None
    w, b = (t.detach().double().numpy() for t in (weight, bias))
    return Norm(w, b, float(eps), rms=False, name="norm", groups=groups)


def params_of(module: Any) -> list[inspect.Parameter]:
    """The parameters of the layer's forward (a Keras layer's call); none when it has no
    signature to read."""
    sig = _inspected(module)
    return [] if sig is None else list(sig.parameters.values())


def positional_of(module: Any) -> list[inspect.Parameter]:
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return [p for p in params_of(module) if p.kind in kinds]


def required_of(module: Any) -> list[str]:
    """The positional parameters without a default: those after x's are passed None (ESPnet's
    `mask`, d2l's `valid_lens`)."""
    return [p.name for p in positional_of(module) if p.default is p.empty]


def keywords_of(module: Any) -> list[str]:
    """The keyword-only parameters without a default, when the forward takes none by
    position (labml.ai's `forward(*, query, key, value, mask=None)`)."""
    if positional_of(module):
        return []
    return [p.name for p in params_of(module) if p.kind is p.KEYWORD_ONLY and p.default is p.empty]
