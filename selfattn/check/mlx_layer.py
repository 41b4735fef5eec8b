"""Checking an MLX layer x -> y (an `mlx.nn.Module` as mlx-lm writes attention: `q_proj` ...
`o_proj` Linears, `n_heads`, called as layer(x, mask=None, cache=None)): its weights read under
the names a torch layer's are, through a torch view of them that is never run, and the layer
checked by effect as a JAX layer is (jax_layer.py), called with mx arrays."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from . import repro
from .frameworks import FRAMEWORKS
from .jax_layer import JaxLayer, JaxText
from .jaxpr import Read
from .projections import find_projections
from .runner import TargetError

Array = np.ndarray


def is_mlx_layer(fn: Any) -> bool:
    """Whether `fn` is an mlx.nn.Module (which answers `named_modules` too, unlike torch's)."""
    nn = _mlx_nn()
    return nn is not None and isinstance(fn, nn.Module)


def read_mlx_layer(module: Any) -> Read | None:
    """The layer's projections, found by name on a torch view of its weights; None: none.
    Its scale and softmax are not read: the reference's 1/sqrt(d) and keys' axis are checked."""
    if importlib.util.find_spec("torch") is None:
        raise TargetError("an MLX layer's weights are read by name through torch: install torch")
    proj = find_projections(_torch_view(module))
    return None if proj is None else Read(proj, None, "keys")


def _torch_view(module: Any) -> Any:
    """A torch module holding `module`'s weights (as float32 tensors) and submodules under the
    same names, and its plain numbers (head counts, sizes) as attributes."""
    import mlx.core as mx  # pyright: ignore[reportMissingImports]
    import torch  # pyright: ignore[reportMissingImports]

    view = torch.nn.Module()
    for name, value in module.items():
        if isinstance(value, mx.array):
            held = torch.tensor(np.array(value.astype(mx.float32)))
            setattr(view, name, torch.nn.Parameter(held, requires_grad=False))
        elif isinstance(value, _mlx_nn().Module):
            setattr(view, name, _torch_view(value))
        elif isinstance(value, list) and all(isinstance(m, _mlx_nn().Module) for m in value):
            setattr(view, name, torch.nn.ModuleList(_torch_view(m) for m in value))
    for name, value in vars(module).items():
        if isinstance(value, int | float) and not name.startswith("_"):
            setattr(view, name, value)
    return view


@contextmanager
def rope_at_zero(module: Any) -> Iterator[list[str]]:
    """Within: every `mlx.nn.RoPE` the layer holds, under any name, turning q and k by angle 0
    (its positions scaled by 0, where the rotation leaves them as they are); yields their
    names, and puts the scales back after."""
    held = [(n, m, m.scale) for n, m in module.named_modules() if isinstance(m, _mlx_nn().RoPE)]
    for _, rope, _ in held:
        rope.scale = 0.0
    try:
        yield [n for n, _, _ in held]
    finally:
        for _, rope, scale in held:
            rope.scale = scale


def _mlx_nn() -> Any:
    return sys.modules.get("mlx.nn")


class MlxLayer(JaxLayer):
    """An MLX layer called as layer(x), x a float32 mx array (batch, n, C)."""

    framework = "mlx"

    def array(self, x: Array) -> Any:
        import mlx.core as mx  # pyright: ignore[reportMissingImports]

        return mx.array(x.astype(np.float32))


class MlxText(JaxText):
    """The reproductions, in numpy around the MLX layer, x handed in as an mx array."""

    def _head(self) -> list[str]:
        return [
            self.framework.imports,
            FRAMEWORKS["mlx"].imports,
            self.imp,
            "",
            "def y(x):  # the output as numpy, also when the layer returns a tuple",
            f"    out = {repro.layer_call(self.layer, self.name, 'mx.array(x)')}",
            "    return np.asarray(out[0] if isinstance(out, tuple) else out)",
            "",
        ]
