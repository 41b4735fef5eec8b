"""Probing an attention layer that holds its own projections, called as layer(x) on hidden
states x of shape (batch, n, C): nanoGPT's CausalSelfAttention and Head, timm's Attention,
Hugging Face's GPT2Attention, lucidrains' and diffusers' to_q / to_k / to_v.

The projections are found under the names published code gives them, and the reference is
computed in float64 from the layer's own weights, head by head, so the known-bug variants of
the kernel check name what a layer gets wrong too. Whether the layer may see the future is
read from the layer itself (a class named causal, a triangular mask buffer, `is_causal`),
and then checked by changing only the later positions of x.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .context import title
from .frameworks import precision
from .probe import CallFailed, Runner, TargetError
from .reference import (
    ATOL,
    CAUSAL,
    CORRECT,
    FUDGE,
    NONCAUSAL_BUGS,
    Variant,
    causal_bugs,
    masked,
)
from .report import Report

Array = np.ndarray

# Where published layers keep their projections, as attribute names.
FUSED = ("c_attn", "qkv", "to_qkv", "Wqkv", "qkv_proj")  # one map to q, k, v side by side
SEPARATE = (
    ("query", "key", "value"),
    ("q_proj", "k_proj", "v_proj"),
    ("to_q", "to_k", "to_v"),
    ("wq", "wk", "wv"),
    ("q", "k", "v"),
)
OUTPUT = ("c_proj", "proj", "out_proj", "o_proj", "to_out", "wo", "out")
NORMS = ("norm", "pre_norm", "input_norm", "ln")  # a LayerNorm or RMSNorm the layer may apply first
HEADS = ("n_head", "num_heads", "n_heads", "num_attention_heads", "heads", "nh")
HEAD_SIZES = ("head_dim", "head_size", "attention_head_size", "dim_head", "d_head")

SIZES = ((8, 0), (5, 1), (16, 2))  # (n, seed) of the inputs x compared with the reference
BATCH = 2


@dataclass(frozen=True)
class Affine:
    """y = x w + b, with w of shape (in, out), read from a torch Linear or a GPT-2 Conv1D."""

    w: Array
    b: Array

    def __call__(self, x: Array, dtype: type = np.float64) -> Array:
        return x.astype(dtype) @ self.w.astype(dtype) + self.b.astype(dtype)

    def columns(self, part: slice) -> Affine:
        return Affine(self.w[:, part], self.b[part])


@dataclass(frozen=True)
class Norm:
    """A LayerNorm (or, `rms`, an RMSNorm) over the last axis, read from the layer."""

    w: Array
    b: Array
    eps: float
    rms: bool
    name: str

    def __call__(self, x: Array, dtype: type = np.float64) -> Array:
        x = x.astype(dtype)
        if not self.rms:
            x = x - x.mean(axis=-1, keepdims=True)
        scale = np.sqrt((x * x).mean(axis=-1, keepdims=True) + dtype(self.eps))
        return x / scale * self.w.astype(dtype) + self.b.astype(dtype)


@dataclass(frozen=True)
class Projections:
    """The layer's maps from x to q, k, v and from the joined heads to the output."""

    q: Affine
    k: Affine
    v: Affine
    out: Affine | None
    heads: int
    names: str  # the attributes they were read from, for the report
    norm: Norm | None = None  # applied to x first, when the layer does (vit-pytorch)

    @property
    def width(self) -> int:
        """C, the width of x."""
        return self.q.w.shape[0]

    @property
    def head_size(self) -> int:
        return self.q.w.shape[1] // self.heads

    def run(
        self, x: Array, variant: Variant, dtype: type = np.float64, cut: bool = False
    ) -> Array | None:
        """The layer's output on x (n, C) with each head computed as `variant`, as float64.

        `cut`: the heads are split as (n, C) reshaped to (heads, n, head_dim), across positions.
        """
        x = self.norm(x, dtype) if self.norm is not None else x
        q, k, v = (self._split(p(x, dtype), cut) for p in (self.q, self.k, self.v))
        heads = []
        for h in range(self.heads):
            out = variant.run(q[h], k[h], v[h], dtype)
            if out is None:
                return None
            heads.append(out)
        joined = np.concatenate(heads, axis=-1)
        if self.out is not None:
            with np.errstate(all="ignore"):
                joined = self.out(joined, dtype)
        return np.asarray(joined, dtype=np.float64)

    def _split(self, t: Array, cut: bool) -> Array:
        n, size = t.shape[0], t.shape[1] // self.heads
        return (
            t.reshape(self.heads, n, size) if cut else t.reshape(n, self.heads, size).swapaxes(0, 1)
        )


@dataclass(frozen=True)
class Suspect:
    """One way a layer may compute: `variant` in every head, the heads split across the
    positions (`cut`) or as they should be."""

    variant: Variant
    cut: bool = False

    @property
    def id(self) -> str | None:
        return "heads-split-wrong" if self.cut else self.variant.id

    @property
    def detail(self) -> str:
        if self.cut:
            return "heads split as (batch, heads, n, head_dim) straight from (batch, n, C)"
        return self.variant.detail

    def run(self, proj: Projections, x: Array, dtype: type = np.float64) -> Array | None:
        return proj.run(x, self.variant, dtype, self.cut)


def _numpy(t: Any) -> Array:
    return t.detach().cpu().double().numpy()


def _affine(module: Any) -> Affine | None:
    """A Linear, a Conv1D (weight stored as (in, out)), or the first of a Sequential."""
    if getattr(module, "weight", None) is None and hasattr(module, "__getitem__"):
        module = next((m for m in module if getattr(m, "weight", None) is not None), None)
    weight = getattr(module, "weight", None)
    if weight is None or not hasattr(weight, "detach") or weight.ndim != 2:
        return None
    w = _numpy(weight)
    w = w if type(module).__name__ == "Conv1D" else w.T
    bias = getattr(module, "bias", None)
    b = _numpy(bias) if bias is not None and hasattr(bias, "detach") else np.zeros(w.shape[1])
    return Affine(w, b) if b.shape == (w.shape[1],) else None


def find_projections(module: Any) -> Projections | None:
    """The projections of an attention layer, or None when none is found under a known name."""
    if not hasattr(module, "named_modules"):
        return None
    found: tuple[Affine, Affine, Affine] | None = None
    names = ""
    for name in FUSED:
        both = _affine(getattr(module, name, None))
        if both is not None and both.w.shape[1] % 3 == 0:
            inner = both.w.shape[1] // 3
            parts = (slice(i * inner, (i + 1) * inner) for i in range(3))
            q, k, v = (both.columns(p) for p in parts)
            found, names = (q, k, v), name
            break
    for trio in SEPARATE if found is None else ():
        maps = [_affine(getattr(module, n, None)) for n in trio]
        if all(m is not None for m in maps):
            q, k, v = maps  # type: ignore[misc]
            if q.w.shape == k.w.shape and q.w.shape[0] == v.w.shape[0]:  # type: ignore[union-attr]
                found, names = (q, k, v), ", ".join(trio)  # type: ignore[assignment]
                break
    if found is None:
        return None
    q, k, v = found
    inner = q.w.shape[1]
    counts = [getattr(module, n, None) for n in HEADS]
    sizes = [getattr(module, n, None) for n in HEAD_SIZES]
    counts += [inner // s for s in sizes if isinstance(s, int) and s >= 1 and inner % s == 0]
    heads = next(
        (
            h
            for h in counts
            if isinstance(h, int) and h >= 1 and inner % h == 0 and v.w.shape[1] % h == 0
        ),
        1,
    )
    out = None
    for name in OUTPUT:
        candidate = _affine(getattr(module, name, None))
        if candidate is not None and candidate.w.shape[0] == v.w.shape[1]:
            out, names = candidate, f"{names}, {name}"
            break
    return Projections(q, k, v, out, heads, names, _norm(module, q.w.shape[0]))


def _norm(module: Any, width: int) -> Norm | None:
    """A LayerNorm or RMSNorm over x's width held under a name a pre-norm goes by."""
    for name in NORMS:
        norm = getattr(module, name, None)
        kind = type(norm).__name__
        if "LayerNorm" not in kind and "RMSNorm" not in kind:
            continue
        weight, bias = getattr(norm, "weight", None), getattr(norm, "bias", None)
        w = _numpy(weight) if weight is not None else np.ones(width)
        b = _numpy(bias) if bias is not None else np.zeros(width)
        eps = getattr(norm, "eps", None) or getattr(norm, "variance_epsilon", None)
        if w.shape == b.shape == (width,):
            return Norm(w, b, float(eps or np.finfo(np.float32).eps), "RMS" in kind, name)
    return None


def causal_intent(module: Any) -> str | None:
    """Why the layer is meant to hide the future, or None when nothing in it says so."""
    cls = type(module).__name__
    if "causal" in cls.lower():
        return f"its class is {cls}"
    for name in ("is_causal", "causal"):
        if getattr(module, name, None) is True:
            return f"its `{name}` is True"
    for name, buf in getattr(module, "named_buffers", lambda: [])():
        m = _numpy(buf)
        while m.ndim > 2 and m.shape[0] == 1:
            m = m[0]
        if m.ndim != 2 or m.shape[0] != m.shape[1] or m.shape[0] < 2:
            continue
        values = set(np.unique(m).tolist())
        keep = m != 0 if values <= {0.0, 1.0} else m == 0 if (m < 0).any() else None
        if keep is None or keep.all() or not keep.any():
            continue
        if np.array_equal(keep, np.tril(keep, 1)) or np.array_equal(keep, np.triu(keep, -1)):
            return f"its buffer `{name}` is a triangular mask"
    return None


# How a causal mask may go into a layer's mask argument, as a (1, 1, n, n) tensor: added to
# the scores (0 or the dtype's lowest value, as Hugging Face's models hand it to eager
# attention), or boolean, True = may attend (F.scaled_dot_product_attention) or True = hidden.
MASK_FORMS = ("additive", "keep", "block")


@dataclass(frozen=True)
class CausalMask:
    """The causal mask handed to the layer's mask argument `param`, in `form`."""

    param: str
    form: str

    def make(self, n: int, dtype: Any) -> Any:
        import torch  # pyright: ignore[reportMissingImports]

        keep = torch.ones(n, n, dtype=torch.bool).tril()[None, None]
        if self.form == "additive":
            return torch.zeros(1, 1, n, n, dtype=dtype).masked_fill(~keep, torch.finfo(dtype).min)
        return keep if self.form == "keep" else ~keep

    def text(self, dtype: str) -> list[str]:
        """The reproductions' `causal(n)`, making the same mask."""
        keep = "torch.ones(n, n, dtype=torch.bool).tril()[None, None]"
        made = {
            "additive": f"torch.zeros(1, 1, n, n, dtype={dtype}).masked_fill(~keep, "
            f"torch.finfo({dtype}).min)",
            "keep": "keep",
            "block": "~keep",
        }[self.form]
        return [
            f"def causal(n):  # the causal mask as `{self.param}` takes it: {self.said}",
            f"    keep = {keep}",
            f"    return {made}",
            "",
        ]

    @property
    def said(self) -> str:
        return {
            "additive": "added to the scores, 0 or the lowest value",
            "keep": "boolean, True = may attend",
            "block": "boolean, True = hidden",
        }[self.form]


class Layer:
    """A target called as layer(x), x a torch tensor (batch, n, C) in the layer's dtype, with
    a causal mask in its mask argument once one is found to be what makes it causal."""

    def __init__(self, runner: Runner, module: Any, proj: Projections) -> None:
        self.runner, self.proj = runner, proj
        param = next(iter(module.parameters()))
        self.dtype = param.dtype
        self.lp = precision(str(self.dtype))
        self.mask: CausalMask | None = None

    def x(self, n: int, seed: int, batch: int = 1) -> Array:
        """The input the reproductions make with torch.randn and this seed, as float64."""
        import torch  # pyright: ignore[reportMissingImports]

        g = torch.Generator().manual_seed(seed)
        return _numpy(torch.randn(batch, n, self.proj.width, generator=g, dtype=self.dtype))

    def __call__(self, x: Array) -> Array:
        """The output for x (batch, n, C) as float64 (batch, n, C_out), or CallFailed."""
        import torch  # pyright: ignore[reportMissingImports]

        given = torch.tensor(x, dtype=self.dtype)
        extra = {self.mask.param: self.mask.make(x.shape[1], self.dtype)} if self.mask else {}
        out = np.asarray(self.runner(given, **extra))
        if out.ndim == 2 and x.shape[0] == 1:
            out = out[None]
        if out.ndim != 3 or out.shape[:2] != x.shape[:2]:
            raise CallFailed(f"returned shape {out.shape} for x of shape {x.shape}")
        return out

    def tolerance(self, x: Array, suspect: Suspect) -> float:
        ref = suspect.run(self.proj, x)
        low = suspect.run(self.proj, x, self.lp.dtype)
        if ref is None or low is None or not np.isfinite(ref).any():
            return ATOL
        with np.errstate(all="ignore"):
            err = float(np.nanmax(np.abs(low - ref))) * self.lp.factor
        return max(FUDGE * err, ATOL * max(1.0, float(np.nanmax(np.abs(ref)))))


def check_layer(
    module: Any,
    proj: Projections,
    masks: list[str],
    runner: Runner,
    rep: Report,
    imp: str,
    name: str,
) -> None:
    """Check a layer; `masks` are its mask arguments, which may carry its causal mask."""
    layer = Layer(runner, module, proj)
    n0, s0 = SIZES[0]
    x0 = layer.x(n0, s0)
    try:
        first = layer(x0)
    except CallFailed as exc:
        shape = f"(1, {n0}, {proj.width}) {str(layer.dtype).replace('torch.', '')}"
        raise TargetError(f"{name}(x) could not be called with x of shape {shape}: {exc}") from None
    rep.kind = "layer"
    rep.backend = f"torch {str(layer.dtype).replace('torch.', '')} x of shape (batch, n, C)"
    rep.notes.append(
        f"projections `{proj.names}`: {proj.heads} head{'s' if proj.heads > 1 else ''} of size "
        f"{proj.head_size}, C = {proj.width}; the reference uses the layer's own weights"
    )
    text = _Text(name, imp, proj.width, layer.dtype)
    tol = layer.tolerance(x0[0], Suspect(CORRECT))
    if float(np.max(np.abs(layer(x0) - first))) > tol:
        rep.check("same output for the same input", "fail", "two calls on the same x differ")
        rep.add("random-output", title("random-output"), text.random(n0, s0))
        return
    rep.check("same output for the same input", "pass")

    reason = causal_intent(module)
    leak = _future_leak(layer, x0, first, tol)
    causal = reason is not None or leak is None
    if reason is not None:
        rep.notes.append(f"checked as causal: {reason}")
        # a layer may leave its mask to the model around it (Hugging Face's eager attention)
        layer.mask = _mask_that_hides_the_future(layer, masks, x0, tol) if leak else None
        if layer.mask is not None:
            leak = None
            rep.notes.append(
                f"the causal mask goes in through `{layer.mask.param}` ({layer.mask.said}, "
                f"(1, 1, n, n)): without it the layer sees the future"
            )
            text.mask = layer.mask
    elif causal:
        rep.notes.append("masks the future by itself (no flag, no triangular buffer): causal")
    else:
        rep.notes.append("every position sees the whole sequence: checked without a mask")

    want = Suspect(CAUSAL if causal else CORRECT)
    if proj.norm is not None:
        proj = layer.proj = _with_or_without_norm(layer, want, x0[0], first[0])
        if proj.norm is not None:
            kind = "RMSNorm" if proj.norm.rms else "LayerNorm"
            rep.notes.append(f"x goes through `{proj.norm.name}` ({kind}) before the projections")
    which = "causal" if causal else "no mask"
    check_name = f"matches float64 reference attention layer ({which})"
    results = [(x, layer(x)) for x in (layer.x(n, s) for n, s in SIZES)]
    sizes = ", ".join(f"n = {n}" for n, _ in SIZES)
    named = False  # a known bug, or an unexplained output, already reported
    if all(_agrees(layer, x[0], out[0], want) for x, out in results):
        rep.check(check_name, "pass", f"x of shape (1, n, {proj.width}): {sizes}")
    else:
        hit = next(
            (
                v
                for v in _candidates(causal, proj)
                if all(_agrees(layer, x[0], out[0], v) for x, out in results)
            ),
            None,
        )
        if hit is not None and hit.id is not None:
            rep.check(check_name, "fail", f"matches the known bug: {hit.detail}")
            said = title(hit.id) if hit.cut else f"{title(hit.id)} ({hit.detail})"
            rep.add(hit.id, said, text.expected(x0[0], s0, proj, want))
            named = True
        else:
            rep.check(check_name, "fail", "differs from the reference; matches no known bug")
            if not (causal and leak):  # a leak says more than "wrong": it is reported below
                rep.add("wrong-output", title("wrong-output"), text.expected(x0[0], s0, proj, want))
                named = True
    if causal:
        leak_name = "no future leak: output i ignores x after i"
        if leak is None:
            rep.check(leak_name, "pass", f"x of shape (1, {n0}, {proj.width}), every i")
        else:
            row, after = leak
            detail = f"output {row} moves when only x after position {after} changes"
            rep.check(leak_name, "fail", detail)
            if not named:
                rep.add(
                    "causal-leak", f"{title('causal-leak')}: {detail}", text.leak(n0, s0, after)
                )
    _batched(layer, text, rep, tol)


def _with_or_without_norm(layer: Layer, want: Suspect, x: Array, out: Array) -> Projections:
    """The layer holds a norm: whether it applies it to x is read from which reference the
    output is nearer."""
    plain = replace(layer.proj, norm=None)
    errors = []
    for proj in (layer.proj, plain):
        ref = want.run(proj, x)
        if ref is None:
            errors.append(np.inf)
            continue
        rows = np.isfinite(ref).all(axis=-1)
        errors.append(float(np.max(np.abs(out[rows] - ref[rows]))) if rows.any() else np.inf)
    return layer.proj if errors[0] <= errors[1] else plain


def _agrees(layer: Layer, x: Array, out: Array, suspect: Suspect) -> bool:
    ref = suspect.run(layer.proj, x)
    if ref is None or ref.shape != out.shape:
        return False
    rows = np.isfinite(ref).all(axis=-1)
    if not rows.any() or not np.isfinite(out[rows]).all():
        return False
    return float(np.max(np.abs(out[rows] - ref[rows]))) <= layer.tolerance(x, suspect)


def _candidates(causal: bool, proj: Projections) -> list[Suspect]:
    """The known bugs, under the mask the layer is meant to have; and two that only a layer
    can have: scaled by the model width C instead of the head size (nanoGPT's lecture Head,
    `C**-0.5`), and heads split across positions."""
    by_width = Variant(
        "scale-wrong",
        f"scores scaled by C**-0.5 = {proj.width}**-0.5, the model width, not the head size",
        scores="alpha",
        p=proj.width**-0.5,
    )
    # first: where C is the square of the head size, C**-0.5 is also 1 / d, and the width is
    # the likelier reading in a layer
    plain = [by_width, *NONCAUSAL_BUGS] if proj.width != proj.head_size else [*NONCAUSAL_BUGS]
    base = CAUSAL if causal else CORRECT
    cut = [Suspect(base, cut=True)] if proj.heads > 1 else []
    if not causal:
        return [*(Suspect(v) for v in plain), *cut]
    return [*(Suspect(masked(v)) for v in plain), *(Suspect(v) for v in causal_bugs(CORRECT)), *cut]


def _mask_that_hides_the_future(
    layer: Layer, masks: list[str], x: Array, tol: float
) -> CausalMask | None:
    """The first mask argument and form under which the layer no longer sees the future."""
    for param in masks:
        for form in MASK_FORMS:
            layer.mask = CausalMask(param, form)
            try:
                if _future_leak(layer, x, layer(x), tol) is None:
                    return layer.mask
            except CallFailed:
                continue
    layer.mask = None
    return None


def _future_leak(layer: Layer, x: Array, out: Array, tol: float) -> tuple[int, int] | None:
    """(row, i): the first output row at or before i that moves when only x after i changes."""
    n = x.shape[1]
    rng = np.random.default_rng(7)
    for i in range(n - 1):
        changed = x.copy()
        changed[:, i + 1 :] = rng.standard_normal(changed[:, i + 1 :].shape)
        moved = np.max(np.abs(layer(changed)[0, : i + 1] - out[0, : i + 1]), axis=-1)
        if moved.max() > tol:
            return int(np.argmax(moved > tol)), i
    return None


def _batched(layer: Layer, text: _Text, rep: Report, tol: float) -> None:
    n, seed = SIZES[0]
    name = f"batch of {BATCH}: each sequence on its own"
    xs = layer.x(n, seed, BATCH)
    try:
        together = layer(xs)
    except CallFailed as exc:
        rep.check(name, "warn", str(exc))
        rep.add(
            "batched-input-unsupported",
            f"{title('batched-input-unsupported')}: {exc}",
            text.batch(n, seed),
        )
        return
    for b in range(BATCH):
        if float(np.max(np.abs(layer(xs[b : b + 1])[0] - together[b]))) > tol:
            rep.check(name, "fail", f"sequence {b} differs from the same x alone")
            rep.add(
                "wrong-output",
                f"{title('wrong-output')}: in a batch of {BATCH} the sequences are mixed",
                text.batch(n, seed),
            )
            return
    rep.check(name, "pass")


class _Text:
    """The reproductions: torch code a reader can paste next to the file."""

    def __init__(self, name: str, imp: str, width: int, dtype: Any) -> None:
        self.name, self.imp, self.width = name, imp, width
        self.dtype = str(dtype)
        self.mask: CausalMask | None = None

    def _x(self, n: int, seed: int, batch: int = 1, var: str = "x") -> str:
        return (
            f"{var} = torch.randn({batch}, {n}, {self.width}, "
            f"generator=torch.Generator().manual_seed({seed}), dtype={self.dtype})"
        )

    def _head(self) -> list[str]:
        mask = self.mask.text(self.dtype) if self.mask else []
        given = f", {self.mask.param}=causal(x.shape[1])" if self.mask else ""
        return [
            "import torch",
            self.imp,
            "",
            *mask,
            "def y(x):  # the output, also when the layer returns a tuple",
            f"    out = {self.name}(x{given})",
            "    return out[0] if isinstance(out, tuple) else out",
            "",
        ]

    def random(self, n: int, seed: int) -> str:
        lines = [*self._head(), self._x(n, seed)]
        lines.append("print((y(x) - y(x)).abs().max())  # should be 0")
        return "\n".join(lines)

    def leak(self, n: int, seed: int, after: int) -> str:
        lines = [*self._head(), self._x(n, seed), "later = x.clone()"]
        lines.append(f"later[:, {after + 1}:] = torch.randn_like(later[:, {after + 1}:])")
        lines.append(
            f"print((y(x)[:, :{after + 1}] - y(later)[:, :{after + 1}]).abs().max())"
            f"  # 0 if outputs 0..{after} ignore the future"
        )
        return "\n".join(lines)

    def batch(self, n: int, seed: int) -> str:
        lines = [*self._head(), self._x(n, seed, BATCH, "xs")]
        lines.append("print(max((y(xs)[b] - y(xs[b:b+1])[0]).abs().max() for b in range(2)))")
        lines[-1] += "  # should be 0"
        return "\n".join(lines)

    def expected(self, x: Array, seed: int, proj: Projections, want: Suspect) -> str:
        """What the layer should print for its input x (n, C), made with `seed`: a middle
        row, which a causal mask and the scale both reach (the first row sees one key, the
        last sees all)."""
        n, row = x.shape[0], x.shape[0] // 2
        ref = want.run(proj, x)
        shown = ", ".join(f"{v:.4f}" for v in (ref[row, :4] if ref is not None else ()))
        lines = [*self._head(), self._x(n, seed), f"print(y(x)[0, {row}, :4])"]
        lines.append(f"# expected ({want.detail}, from the layer's own weights): [{shown}]")
        return "\n".join(lines)
