"""Checking a JAX layer x -> y (a Flax module applied to its parameters, or any function of x)
whose maps were read from its jaxpr (jaxpr.py): the same reference, known bugs, leak and batch
checks as a torch layer's (layer.py, run by the same rules), called with jax arrays, reproduced
in numpy."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import repro
from .frameworks import FRAMEWORKS, CallFailed
from .jaxpr import Read
from .kernel import Target
from .layer import SIZES, Layer, LayerRun, future_leak
from .layer_rules import flag_by_effect, heads_text, unmasked_note
from .layer_text import LayerText
from .projections import Suspect
from .reference import CORRECT
from .report import Report
from .runner import TargetError

Array = np.ndarray


class JaxLayer(Layer):
    """A JAX layer called as layer(x), x a float32 jax array (batch, n, C)."""

    kind = "jax layer"  # and an MLX layer's (mlx_layer.py): both checked by effect
    framework = "jax"

    def array(self, x: Array) -> Any:
        import jax.numpy as jnp  # pyright: ignore[reportMissingImports]

        return jnp.asarray(x, jnp.float32)

    def x(self, n: int, seed: int, batch: int = 1) -> Array:
        """The input the reproductions make with numpy's generator and this seed."""
        rng = np.random.default_rng(seed)
        made = rng.standard_normal((batch, n, self.proj.width)).astype(np.float32)
        return made.astype(np.float64)

    def inputs(self, x: Array, dtype: Any) -> tuple[list[Any], dict[str, Any]]:
        """x as a float32 array of the layer's framework, as often as the layer takes it, and
        its flag."""
        flag = {self.flag: True} if self.flag else {}
        return [self.array(x)] * self.proj.inputs, {**self.args, **flag}


class JaxText(LayerText):
    """The reproductions, in numpy around the JAX layer."""

    framework = FRAMEWORKS["numpy"]
    zero = ""

    def _head(self) -> list[str]:
        return [
            self.framework.imports,
            self.imp,
            "",
            "def y(x):  # the output as numpy, also when the layer returns a tuple",
            f"    out = {repro.layer_call(self.layer, self.name, 'x')}",
            "    return np.asarray(out[0] if isinstance(out, tuple) else out)",
            "",
        ]


def start(
    found: Read, t: Target, rep: Report, imp: str, made: tuple[type, type] = (JaxLayer, JaxText)
) -> LayerRun:
    """Call a JAX layer read from its jaxpr once (or, `made` (MlxLayer, MlxText), an MLX layer
    read by name), and say what was read; its causal flag is the one named so, else a switch
    found by its effect."""
    layer = made[0](t.runner, found.proj, "float32")
    layer.args = dict(t.args)
    layer.text = made[1](layer, t.name, imp)
    proj, (n0, s0) = found.proj, SIZES[0]
    x0 = layer.x(n0, s0)
    try:
        first = layer(x0)
    except CallFailed as exc:
        why = f"{t.name} could not be called with x of shape {x0.shape}: {exc}"
        raise TargetError(why) from None
    rep.kind, rep.backend = "layer", f"{layer.framework} float32 x of shape (batch, n, C)"
    read = f"projections `{proj.names}`" if layer.framework == "mlx" else None
    rep.notes.append(f"{read or f'{proj.names} (names are not read)'}: {heads_text(proj)}")
    if found.scale is not None:
        rep.notes.append(
            f"the scores are q k^T times {found.scale:.4g}, read from the jaxpr "
            f"(1/sqrt({proj.head_size}) = {proj.head_size**-0.5:.4g})"
        )
    if found.axis == "queries":
        rep.notes.append("the softmax normalises over the queries, as the jaxpr shows")
    tol = layer.tolerance(x0[0], Suspect(CORRECT))
    flag = t.sig.flag or flag_by_effect(layer, x0, first, t.sig.switches, tol)
    run = LayerRun(layer, rep, None, [], flag)
    run.facts |= {"x": x0, "first": first, "tol": tol}
    return run


def intent(run: LayerRun) -> None:
    """Nothing but its effect says whether a JAX layer hides the future: causal when no
    output moves when only later x changes (`causal`, and the `leak` found)."""
    leak = future_leak(run.layer, run.facts["x"], run.facts["first"], run.facts["tol"])
    causal = leak is None
    run.rep.notes.append(unmasked_note(causal, run.flag))
    run.facts |= {"causal": causal, "leak": leak, "flag off": run.flag is not None and not causal}
