"""The reproductions of a layer's findings: torch code a reader can paste next to the file (a JAX
layer's are jax_layer.JaxText)."""

from __future__ import annotations

import numpy as np

from . import repro
from .frameworks import FRAMEWORKS
from .layer import BATCH, Layer
from .projections import Projections, Suspect
from .rotary import AT_ZERO, AT_ZERO_TEXT, ON_EACH_CALL, held_at

Array = np.ndarray


# by Projections.layout, how a reproduction hands x (batch, n, C) to the layer, turns its
# output back and says so, and the shape the report says x goes in as
LAYOUT_TEXT = {
    "": ("x", "", "", "(batch, n, C)"),
    "time_first": (
        "x.transpose(0, 1)",
        ".transpose(0, 1)",
        "x as (n, batch, C), ",
        "(n, batch, C)",
    ),
    "image": (
        "x[:, :, None]",
        "[:, :, 0]",
        "x as an n x 1 image, ",
        "(batch, n, 1, C), an n x 1 image",
    ),
    # the sequence along the width, as Apple's ANE layers take it; a U-Net's, which flattens
    # H x W, takes it too, where (batch, C, n, 1) would read each position alone to the former
    "channels_first": (
        "x.transpose(1, 2)[:, :, None].contiguous()",
        "[:, :, 0].transpose(1, 2)",
        "x as a 1 x n image (batch, C, 1, n), ",
        "(batch, C, 1, n), a 1 x n image, channels first",
    ),
}


class LayerText:
    """The reproductions: torch code a reader can paste next to the file."""

    framework = FRAMEWORKS["torch"]  # how it writes the largest change, a copy, new values
    zero = "  # should be 0"  # what a batch's reproduction says it should print

    def __init__(self, layer: Layer, name: str, imp: str) -> None:
        self.layer, self.name, self.imp = layer, name, imp
        self.zeroed: list[str] = []  # the angles of a rotation the layer makes itself

    @property
    def width(self) -> int:
        return self.layer.proj.width

    @property
    def dtype(self) -> str:
        return self.layer.dtype_name

    def _x(self, n: int, seed: int, batch: int = 1, var: str = "x") -> str:
        return repro.drawn(self.framework, var, (batch, n, self.width), seed, self.dtype)

    def _head(self) -> list[str]:
        layer, proj = self.layer, self.layer.proj
        mask = repro.causal_def(self.framework, layer.mask, self.dtype) if layer.mask else []
        mask += layer.rotary.text(str(layer.dtype)) if layer.rotary else []
        x, back, said, _ = LAYOUT_TEXT[proj.layout]
        still, calls = self._at_zero(f"out = {repro.layer_call(layer, self.name, x)}")
        return [
            self.framework.imports,
            self.imp,
            "",
            *still,
            *mask,
            f"def y(x):  # the output, {said}also when the layer returns a tuple",
            *calls,
            f"    return (out[0] if isinstance(out, tuple) else out){back}",
            "",
        ]

    def _at_zero(self, call: str) -> tuple[list[str], list[str]]:
        """The lines that hold the layer's own rotation at angle 0, as checked, and the call:
        its kept angles filled in place, or, for angles worked out on each call, the call run
        under AtZero (cos 1, sin 0)."""
        if ON_EACH_CALL in self.zeroed:
            return [*AT_ZERO_TEXT.splitlines(), ""], ["    with AtZero():", f"        {call}"]
        still = [f"    {self.name}.{n}.fill_({AT_ZERO[held_at(n) or '']})" for n in self.zeroed]
        if still:
            still = ["with torch.no_grad():  # angles, relative bias at 0, as checked", *still, ""]
        return still, [f"    {call}"]

    def random(self, n: int, seed: int) -> str:
        said = f"print({self.framework.largest.format('y(x) - y(x)')})  # should be 0"
        return "\n".join([*self._head(), self._x(n, seed), said])

    def leak(self, n: int, seed: int, after: int) -> str:
        later, a = f"later[:, {after + 1}:]", after + 1
        lines = [*self._head(), self._x(n, seed), f"later = {self.framework.copy}"]
        lines.append(f"{later} = {self.framework.fresh.format(later)}")
        lines.append(
            f"print({self.framework.largest.format(f'y(x)[:, :{a}] - y(later)[:, :{a}]')})"
            f"  # 0 if outputs 0..{after} ignore the future"
        )
        return "\n".join(lines)

    def batch(self, n: int, seed: int) -> str:
        each = self.framework.largest.format("y(xs)[b] - y(xs[b:b+1])[0]")
        said = f"print(max({each} for b in range({BATCH})))" + self.zero
        return "\n".join([*self._head(), self._x(n, seed, BATCH, "xs"), said])

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
