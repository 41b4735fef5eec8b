"""Reference attention in float64 and low precision, the known-bad variants, and tolerances."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

# Tolerance practice of the PyTorch and FlashAttention tests: the error allowed is a multiple
# of what the same formula makes in low precision (float32 here), with a small floor.
FUDGE = 4.0
ATOL = 1e-5  # floor, relative to the size of the reference output

Array = np.ndarray


@dataclass(frozen=True)
class Precision:
    """The precision a kernel computes in: a numpy dtype, and how much coarser the real one is
    (numpy has no bfloat16: it is float16 with 8x the error, the ratio of their epsilons)."""

    dtype: type = np.float32
    factor: float = 1.0

    @property
    def eps(self) -> float:
        return float(np.finfo(self.dtype).eps) * self.factor

    @property
    def name(self) -> str:
        return "bfloat16" if self.factor > 1 else np.dtype(self.dtype).name


FLOAT32 = Precision()
FLOAT16 = Precision(np.float16)
BFLOAT16 = Precision(np.float16, 8.0)

ScoreFn = Callable[[Array, Array, float], "Array | None"]


def softmax(x: Array, axis: int | None = -1) -> Array:
    """Stable softmax; a row that is -inf everywhere comes out NaN (nothing to attend to)."""
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def _mm(a: Array, b: Array) -> Array | None:
    return a @ b if a.shape[-1] == b.shape[-2] else None


# How the scores are formed. `p` is the parameter of the parametric ones (scale, temperature).
SCORES: dict[str, ScoreFn] = {
    "sdpa": lambda q, k, p: (q @ k.T) / np.sqrt(q.dtype.type(q.shape[-1])),
    "raw": lambda q, k, p: q @ k.T,
    "by-d": lambda q, k, p: (q @ k.T) / q.dtype.type(q.shape[-1]),
    "times-sqrt-d": lambda q, k, p: (q @ k.T) * np.sqrt(q.dtype.type(q.shape[-1])),
    "by-sqrt-n": lambda q, k, p: (q @ k.T) / np.sqrt(q.dtype.type(k.shape[0])),
    "alpha": lambda q, k, p: (q @ k.T) * q.dtype.type(p),
    "no-transpose": lambda q, k, p: (
        r / np.sqrt(q.dtype.type(q.shape[-1])) if (r := _mm(q, k)) is not None else None
    ),
    "transposed": lambda q, k, p: (k @ q.T) / np.sqrt(q.dtype.type(q.shape[-1])),
    # QK-norm: cosine (L2/RMS-normalised) or correlation (LayerNorm-ed) times a temperature,
    # fixed or growing like sqrt(d).
    "cosine": lambda q, k, p: _unit(q) @ _unit(k).T * q.dtype.type(p),
    "centered": lambda q, k, p: _unit(_center(q)) @ _unit(_center(k)).T * q.dtype.type(p),
    "cosine-d": lambda q, k, p: _unit(q) @ _unit(k).T * q.dtype.type(p * np.sqrt(q.shape[-1])),
    "centered-d": lambda q, k, p: (
        _unit(_center(q)) @ _unit(_center(k)).T * q.dtype.type(p * np.sqrt(q.shape[-1]))
    ),
}


# How the scores become weights; `d` is the head size.
NORMS: dict[str, Callable[[Array, int], Array]] = {
    "softmax": lambda s, d: softmax(s, axis=-1),
    "axis0": lambda s, d: softmax(s, axis=0),
    # softmax of unscaled scores, then divided by sqrt(d)
    "after-scale": lambda s, d: softmax(s, axis=-1) / np.sqrt(s.dtype.type(d)),
    "exp": lambda s, d: np.exp(s),
    "exp-max": lambda s, d: np.exp(s - s.max(axis=-1, keepdims=True)),
    "all": lambda s, d: softmax(s, axis=None),  # over the whole score matrix
    "extra-logit": lambda s, d: _softmax_one_more(s),
}


def _softmax_one_more(s: Array) -> Array:
    """Softmax over the keys and one more logit of 0 that no value goes with: a row sums to
    less than one, and a row whose keys are all masked attends to nothing (zeros, not NaN)."""
    top = np.maximum(np.max(s, axis=-1, keepdims=True), 0)  # the extra logit is a candidate
    e = np.exp(s - top)
    return e / (np.sum(e, axis=-1, keepdims=True) + np.exp(-top))


def one_more(v: Variant) -> Variant:
    """`v` with the extra zero logit in its softmax (flaxformer's `use_extra_logit`, the "off
    by one" softmax): a choice some models are trained with, checked against its own maths."""
    extra = "softmax with an extra zero logit (off by one)"
    return replace(v, norm="extra-logit", detail=f"{v.detail}, {extra}")


def _unit(x: Array) -> Array:
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def _center(x: Array) -> Array:
    return x - x.mean(axis=-1, keepdims=True)


# Which keys position i may see, as a boolean "keep" matrix, for each mask shape.
KEEP: dict[str, Callable[[int], Array]] = {
    "causal": lambda n: np.tril(np.ones((n, n), dtype=bool)),
    "wrong-triangle": lambda n: np.triu(np.ones((n, n), dtype=bool)),
    "wrong-triangle-strict": lambda n: np.triu(np.ones((n, n), dtype=bool), k=1),
    "sees-next": lambda n: np.tril(np.ones((n, n), dtype=bool), k=1),
    "no-diagonal": lambda n: np.tril(np.ones((n, n), dtype=bool), k=-1),
    # a key-padding mask: the last third of the keys padded, at least one
    "padded": lambda n: np.arange(n) < n - max(1, n // 3),
    # both: a kernel causal by itself, given a padding mask
    "causal-padded": lambda n: np.tril(np.ones((n, n), dtype=bool)) & KEEP["padded"](n),
}


@dataclass(frozen=True)
class Window:
    """Local attention: the positions cut into blocks of `size`, each query seeing the keys of
    its own block, of `before` blocks before it and `after` after it (local-attention's
    look_backward and look_forward). Mistral's sliding window of w is blocks of 1, w - 1 before.
    The first block may be `offset` short (a shifted window); `padded`: a layer fills the last
    block with x = 0, attended like x (torchvision's Swin)."""

    size: int
    before: int
    after: int = 0
    offset: int = 0
    padded: bool = False

    def keep(self, n: int) -> Array:
        block = (np.arange(n) + self.offset) // self.size
        gap = block[None, :] - block[:, None]  # key's block minus query's block
        return (gap >= -self.before) & (gap <= self.after)

    @property
    def said(self) -> str:
        if self.size == 1 and not self.after:
            return f"sliding window: each query sees itself and the {self.before} keys before it"
        shift = f", shifted by {self.size - self.offset}" if self.offset else ""
        pad = "; the last block filled with x = 0" if self.padded else ""
        near = f", {self.before} before it and {self.after} after" * (self.before + self.after > 0)
        return f"local windows: blocks of {self.size}{shift}, each query sees its block{near}{pad}"


def local_window(answer: Callable[[Array], Array | None], x: Array, tol: float) -> Window | None:
    """The Window a target keeps to, found by probing: which outputs (rows of `answer(x)`, on
    the last axis but one) move when row j of x alone changes; the Window whose keys (alone, or
    up to the query's own) are those, narrower than the sequence; None when there is none."""
    out, rng, n = answer(x), np.random.default_rng(9), x.shape[-2]
    seen = np.zeros((n, n), dtype=bool)  # seen[i, j]: output i moved with x's row j
    for j in range(n):
        changed = x.copy()
        changed[..., j, :] = rng.standard_normal(changed[..., j, :].shape)
        got = answer(changed)
        if out is None or got is None:
            return None
        seen[:, j] = np.abs(got - out).max(axis=-1).reshape(-1, n).max(axis=0) > tol
    i, j = np.indices(seen.shape)
    attends = seen.diagonal().all() and seen.sum() > n  # its own key, and some other's
    for size, offset in ((s, o) for s in range(1, n if attends else 0) for o in range(s)):
        gap = (j[seen] + offset) // size - (i[seen] + offset) // size
        w = Window(size, int(max(0, -gap.min())), int(max(0, gap.max())), offset)
        if (n - 1 + offset) // size <= w.before:  # the last query sees the whole past: none
            continue
        if any((w.keep(n) & within == seen).all() for within in (True, j <= i)):
            return w
    return None


@dataclass(frozen=True)
class Variant:
    """One way of computing attention: the correct one (id None) or a known bug."""

    id: str | None  # finding id this variant stands for; None when it is correct
    detail: str  # one line saying what it computes
    scores: str = "sdpa"
    norm: str = "softmax"  # a key of NORMS
    keep: str | None = None  # key of KEEP, or None for no mask
    how: str = "inf"  # how the mask is applied: inf (-inf) | fill (`fill`) | after (softmax)
    fill: float = 0.0
    p: float = 1.0  # parameter of the score function
    features: bool = False  # v @ softmax(q^T k / sqrt d): attention over features
    cap: float = 0.0  # logit soft-capping (Gemma 2): scores s become cap * tanh(s / cap)
    window: Window | None = None  # local attention: the keys outside it are hidden too

    def run(self, q: Array, k: Array, v: Array, dtype: type = np.float64) -> Array | None:
        """The output on (n, d) inputs, computed in `dtype`, as float64; None if undefined."""
        q, k, v = (np.asarray(x, dtype=dtype) for x in (q, k, v))
        with np.errstate(all="ignore"):
            if self.features:
                w = softmax((q.T @ k) / np.sqrt(dtype(q.shape[-1])))
                return np.asarray(v @ w, dtype=np.float64)
            s = SCORES[self.scores](q, k, self.p)
            if s is None or s.shape != (q.shape[0], k.shape[0]):
                return None
            if self.cap > 0:
                s = dtype(self.cap) * np.tanh(s / dtype(self.cap))
            keep = self.kept(s.shape[0])
            if keep is not None and self.how == "inf":
                s = np.where(keep, s, dtype(-np.inf))
            elif keep is not None and self.how == "fill":
                s = np.where(keep, s, dtype(self.fill))
            w = NORMS[self.norm](s, q.shape[-1])
            if keep is not None and self.how == "after":
                w = w * keep
            return np.asarray(w @ v, dtype=np.float64)

    def kept(self, n: int) -> Array | None:
        """Which of n x n scores the mask keeps, within the window if one; None: all."""
        keep = KEEP[self.keep](n) if self.keep else None
        if self.window is None:
            return keep
        near = self.window.keep(n)
        return near if keep is None else keep & near


CORRECT = Variant(None, "softmax(q k^T / sqrt(d)) v")
CAUSAL = Variant(None, "causal softmax(q k^T / sqrt(d)) v", keep="causal")


def masked(base: Variant, keep: str | None = "causal") -> Variant:
    """`base` under a correct -inf mask: the causal reference for a kernel whose base is legit."""
    return replace(base, keep=keep, how="inf", fill=0.0)


@dataclass(frozen=True)
class Agreement:
    """How one output compares with one variant on one input."""

    ok: bool
    err: float
    tol: float


def agree(
    out: Array, variant: Variant, q: Array, k: Array, v: Array, lp: Precision
) -> Agreement | None:
    """Compare `out` with `variant` within a multiple of the variant's own low-precision error.

    Rows the variant leaves undefined (NaN: nothing to attend to) are not compared.
    None when the variant is undefined for these shapes.
    """
    ref = variant.run(q, k, v)
    if ref is None or ref.shape != out.shape:
        return None
    rows = np.isfinite(ref).all(axis=-1)
    if not rows.any():
        return None
    low = variant.run(q, k, v, lp.dtype)
    r, o = ref[rows], out[rows]
    tol = allowed(r, low[rows] if low is not None else None, lp)
    if not np.isfinite(o).all():
        return Agreement(False, float("inf"), tol)
    err = float(np.max(np.abs(o - r)))
    return Agreement(err <= tol, err, tol)


def tolerance(q: Array, k: Array, v: Array, lp: Precision, variant: Variant = CORRECT) -> float:
    """The tolerance used to call two outputs of the kernel the same."""
    ref = variant.run(q, k, v)
    low = variant.run(q, k, v, lp.dtype)
    return ATOL if ref is None or low is None else allowed(ref, low, lp)


def hides_the_future(out: Array, plain: Array, tol: float) -> bool:
    """Whether a switch set to True acted as the causal mask: it changed the output (queries
    on the last axis but one) but not its last row, the query that sees every key with or
    without the mask (a kernel's `mask_future`, Keras's `use_causal_mask`)."""
    changed = not np.allclose(out, plain, atol=tol)
    return changed and np.allclose(out[..., -1, :], plain[..., -1, :], atol=tol)


def allowed(ref: Array, low: Array | None, lp: Precision) -> float:
    """The error allowed against `ref`: a multiple of what the same formula errs in low
    precision (`low`, None: nothing), and at least ATOL of the size of `ref`."""
    finite = np.isfinite(ref).any()
    with np.errstate(all="ignore"):
        err = float(np.nanmax(np.abs(low - ref))) * lp.factor if low is not None and finite else 0
        size = float(np.nanmax(np.abs(ref))) if finite else 1.0
    return max(FUDGE * (err if np.isfinite(err) else 0.0), ATOL * max(1.0, size))
