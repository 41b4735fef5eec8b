"""Probing an attention layer that holds its own projections, called as layer(x) on hidden
states x of shape (batch, n, C): nanoGPT's CausalSelfAttention and Head, timm's Attention,
Hugging Face's GPT2Attention, vit-pytorch's and Whisper's attention.

The reference is the layer's own weights (projections.py), head by head, so the known-bug
variants of the kernel check name what a layer gets wrong too. Whether the layer may see the
future is read from the layer itself (a class named causal, a triangular mask buffer,
`is_causal`), and then checked by changing only the later positions of x.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from . import repro
from .companions import Companion
from .facts import Facts
from .frameworks import FRAMEWORKS, CallFailed, precision
from .projections import Projections, Suspect, as_float64
from .questions import future_leaks
from .reference import (
    ATOL,
    allowed,
)
from .report import Report
from .rotary import Rotary, defined
from .runner import Runner

if TYPE_CHECKING:
    from .layer_text import LayerText

Array = np.ndarray
Leak = tuple[int, int]  # (row, i): output `row` <= i moved when only x after i changed

SIZES = ((8, 0), (5, 1), (16, 2))  # (n, seed) of the inputs x compared with the reference
# which part of a fused map is which: as published code splits it, q, k, v first
ORDERS = ("qkv", "kqv", "qvk", "kvq", "vqk", "vkq")
BATCH = 2


# How a causal mask may go into a layer's mask argument, as a (1, 1, n, n) or (n, n) tensor:
# added to the scores (0 or the dtype's lowest value, as Hugging Face's models hand it to
# eager attention), or boolean, True = may attend (F.scaled_dot_product_attention) or
# True = hidden (nn.MultiheadAttention), or 1.0 = may attend and 0.0 = hidden, in the layer's
# float dtype (Hugging Face's `attention_mask` of ones, Perceiver IO's `(1 - mask) * min`).
MASK_FORMS = ("additive", "keep", "block", "ones")
# the usual cause of a wrong triangle around nn.MultiheadAttention
MHA_MASK = (
    "nn.MultiheadAttention reads a boolean attn_mask as True = may NOT attend, the opposite of "
    "F.scaled_dot_product_attention: pass `~tril` (or `torch.triu(ones, 1).bool()`)"
)


@dataclass(frozen=True)
class CausalMask:
    """The causal mask handed to the layer's mask argument `param`, in `form`."""

    param: str
    form: str
    square: bool = False  # (n, n), as nn.MultiheadAttention takes it, not (1, 1, n, n)
    # a key-padding mask instead, the last third of the keys padded (reference.KEEP's
    # "padded"), of this shape, a key of KEY_SHAPES; "": the causal mask
    keys: str = ""

    @property
    def shape(self) -> str:
        return self.keys or ("(n, n)" if self.square else "(1, 1, n, n)")

    @property
    def fn(self) -> str:
        """The reproductions' function that makes it."""
        return "padded" if self.keys else "causal"

    def make(self, n: int, dtype: Any) -> Any:
        """The mask for n positions: the reproductions' `causal(n)` (or `padded(n)`), run."""
        return defined(self.text(str(dtype)), self.fn)(n)

    def text(self, dtype: str) -> list[str]:
        """The reproductions' `causal(n)`, making the same mask (`dtype` torch's: torch.float32)."""
        return repro.causal_def(FRAMEWORKS["torch"], self, dtype.removeprefix("torch."))

    @property
    def said(self) -> str:
        return {
            "additive": "added to the scores, 0 or the lowest value",
            "keep": "boolean, True = may attend",
            "block": "boolean, True = hidden",
            "ones": "1.0 = may attend, 0.0 = hidden",
        }[self.form]


class Layer:
    """A target called as layer(x), x a torch tensor (batch, n, C) in the layer's dtype, with
    a causal mask in its mask argument once one is found to be what makes it causal."""

    def __init__(self, runner: Runner, proj: Projections, dtype: Any) -> None:
        self.runner, self.proj, self.dtype = runner, proj, dtype
        self.lp = precision(str(dtype))
        self.mask: CausalMask | None = None
        self.flag: str | None = None  # a causal flag passed as True
        self.rotary: Rotary | None = None  # the rotation the model would hand in, at angle 0
        self.companions: tuple[Companion, ...] = ()  # its positions or their bound, required
        self.args: dict[str, Any] = {}  # the caller's own, for every call
        # the (n, seed) it is compared on: those of SIZES whose length it takes
        self.sizes: tuple[tuple[int, int], ...] = SIZES
        self.text: LayerText  # the reproductions, once the layer is called

    @property
    def dtype_name(self) -> str:
        """`float16`, for the report: the dtype without torch's prefix."""
        return str(self.dtype).removeprefix("torch.")

    def x(self, n: int, seed: int, batch: int = 1) -> Array:
        """The input the reproductions make with torch.randn and this seed, as float64."""
        import torch  # pyright: ignore[reportMissingImports]

        g = torch.Generator().manual_seed(seed)
        return as_float64(torch.randn(batch, n, self.proj.width, generator=g, dtype=self.dtype))

    kind = "layer"

    @property
    def reference(self) -> Projections:
        """The layer's own weights, which the output is computed from in float64."""
        return self.proj

    def source(self) -> list[str]:
        """The reproductions' first lines: the import, the mask it takes, and y(x)."""
        return self.text._head()

    def call(self, x: Array) -> Array:
        return self(x)

    def __call__(self, x: Array) -> Array:
        """The output for x (batch, n, C) as float64 (batch, n, C_out), or CallFailed."""
        proj = self.proj
        given, extra = self.inputs(x, self.dtype)
        out = np.asarray(self.runner(*given, **extra))
        out = out[:, :, 0] if proj.image and out.ndim == 4 else out
        out = out[:, :, 0].swapaxes(1, 2) if proj.channels_first and out.ndim == 4 else out
        if out.ndim == 2 and x.shape[0] == 1:
            out = out[:, None] if proj.time_first else out[None]
        out = out.swapaxes(0, 1) if proj.time_first and out.ndim == 3 else out
        if out.ndim != 3 or out.shape[:2] != x.shape[:2]:
            raise CallFailed(f"returned shape {out.shape} for x of shape {x.shape}")
        return out

    def inputs(self, x: Array, dtype: Any) -> tuple[list[Any], dict[str, Any]]:
        """The arguments of a call on x (batch, n, C) as torch tensors of `dtype`: x in the
        layer's layout, as often as it takes it, and its mask, flag and rotation."""
        import torch  # pyright: ignore[reportMissingImports]

        proj, n = self.proj, x.shape[1]
        given = torch.tensor(x, dtype=dtype)
        given = given.transpose(0, 1) if proj.time_first else given
        given = given[:, :, None] if proj.image else given
        # contiguous: torch 2.13's backward through a 1 x 1 convolution and a GroupNorm of
        # a (batch, C, 1, n) view with strides (n C, 1, n C, C) ends the process (SIGSEGV)
        given = given.transpose(1, 2)[:, :, None].contiguous() if proj.channels_first else given
        extra = {self.mask.param: self.mask.make(n, dtype)} if self.mask else {}
        extra |= {self.flag: True} if self.flag else {}
        extra |= self.rotary.args(n, dtype) if self.rotary else {}
        extra |= {c.param: c.make(n) for c in self.companions}
        if proj.keywords:  # forward(*, query, key, value): labml.ai's
            return [], {**dict.fromkeys(proj.keywords, given), **self.args, **extra}
        return [given] * proj.inputs, {**self.args, **extra}

    def tolerance(self, x: Array, suspect: Suspect, proj: Projections | None = None) -> float:
        ref = suspect.run(proj or self.proj, x)
        low = suspect.run(proj or self.proj, x, self.lp.dtype)
        return ATOL if ref is None or low is None else allowed(ref, low, self.lp)


@dataclass
class LayerRun:
    """One check of a layer: what its rules share (rules.State)."""

    layer: Layer
    rep: Report
    module: Any  # None for a JAX layer
    masks: list[str]  # its mask arguments, which may carry its causal mask
    flag: str | None  # its causal flag (timm's `is_causal`), checked on as well as off
    facts: Facts = field(default_factory=Facts)

    @property
    def subject(self) -> Layer:
        return self.layer


def future_leak(layer: Layer, x: Array, out: Array, tol: float) -> Leak | None:
    """(row, i): the first output row at or before i that moves when only x after i changes."""
    rng = np.random.default_rng(7)

    def changed(i: int) -> Array:
        later = x.copy()
        later[:, i + 1 :] = rng.standard_normal(later[:, i + 1 :].shape)
        return layer(later)

    for i, moved, _ in future_leaks(out, range(x.shape[1] - 1), changed):
        if moved.max() > tol:
            return int(np.argmax(moved > tol)), i
    return None
