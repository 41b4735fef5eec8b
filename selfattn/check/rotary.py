"""Rotary position embeddings handed into a layer, given as the identity: angle 0 everywhere.

A LLaMA-family layer does not make its rotation; the model around it hands each call the
angles, as cos and sin (Hugging Face's `position_embeddings`), as complex numbers e^(i angle)
(Meta's LLaMA and torchtitan's `freqs_cis`), as cos and sin in a last axis of two (gpt-fast's
`freqs_cis`), or as two arguments, the cos and the sin of each half-dimension's angle
(llama2.c's `freqs_cos` and `freqs_sin`) or of each dimension's, (1, n, head size) (LitGPT's
`cos` and `sin`; (1, n, 1) where only part of each head is rotated, as its default config
does). At angle 0 the rotation leaves q and k as they are, so the layer is checked as
attention without positions: its scale, mask, softmax and heads, against its own weights.
The rotation itself is the model's, and is not checked here.

A layer that makes its rotation itself, from angles it keeps (an `inv_freq`, a `cos` and `sin`
it has worked out), is set to angle 0 the same way for the check, and put back after. One that
works its angles out on every call and keeps none (keras-hub's RotaryEmbedding) has its cos and
sin answered as at angle 0, 1 and 0, while it runs (AT_ZERO_TEXT).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from itertools import pairwise
from typing import Any

from .names import named

# where a layer takes its rotation, and the forms it may take there, tried in this order
FORMS = {
    **dict.fromkeys(named("rotation as cos, sin"), ("cos_sin",)),
    **dict.fromkeys(named("rotation as complex"), ("complex", "pairs")),
}
# what each angle a layer keeps holds at angle 0: frequencies or angles 0, cos 1 and sin 0
# worked out ahead, e^(i 0) = 1
# where a layer takes cos and sin as two arguments, (n, head_size / 2) each: cosine's, sine's
APART = dict(named("rotation as cos and sin apart"))
# the forms one argument under any other name is tried in
FORMS_ANY = ("cos_sin", "pairs", "complex")
AT_ZERO = {
    **dict.fromkeys(named("relative bias"), 0.0),  # not a rotation: a bias, held at 0 alike
    **dict.fromkeys(named("angles"), 0.0),
    **dict.fromkeys(named("cosines"), 1.0),
    **dict.fromkeys(named("sines"), 0.0),
    **dict.fromkeys(named("complex rotations"), 1.0),
}


def held_at(path: str) -> str | None:
    """The key of AT_ZERO a tensor at `path` in the module is held under (`inv_freq`,
    `relative_attention_bias.weight`), or None."""
    return next((k for k in AT_ZERO if path == k or path.endswith(f".{k}")), None)


def defined(lines: list[str], name: str) -> Any:
    """The function `name` that a reproduction's source `lines` define, made by running them:
    what is checked is made by the very text the reproductions show."""
    return _compiled("\n".join(lines))[name]


@cache
def _compiled(source: str) -> dict[str, Any]:
    import torch  # pyright: ignore[reportMissingImports]

    scope: dict[str, Any] = {"torch": torch}
    exec(source, scope)  # our own text: the helpers above a reproduction
    return scope


@dataclass(frozen=True)
class Rotary:
    """Angle 0 at every position, as the layer's argument `param` takes it, in `form`."""

    param: str
    form: str
    head_size: int
    sine: str = ""  # form "apart": the argument the sine goes to, the cosine going to `param`
    by_shape: bool = False  # under a name no table holds: taken only if it acts (layer_rules)
    gain: float = 1.0  # cos and sin times this: q and k scaled by it, to see the argument act

    def args(self, n: int, dtype: Any) -> dict[str, Any]:
        """The keyword arguments that hand the layer its rotation at angle 0."""
        made = self.make(n, dtype)
        if self.gain != 1.0:
            made = (
                tuple(m * self.gain for m in made) if isinstance(made, tuple) else made * self.gain
            )
        return (
            dict(zip((self.param, self.sine), made, strict=True))
            if self.sine
            else {self.param: made}
        )

    @property
    def given(self) -> str:
        """The reproductions' keyword arguments for the same call, after `rotation` is made."""
        if self.sine:
            return f", {self.param}=rotation(x.shape[1])[0], {self.sine}=rotation(x.shape[1])[1]"
        return f", {self.param}=rotation(x.shape[1])"

    @property
    def params(self) -> str:
        """The arguments it goes in through, for the report."""
        return f"`{self.param}` and `{self.sine}`" if self.sine else f"`{self.param}`"

    def make(self, n: int, dtype: Any) -> Any:
        """The angles for n positions: the reproductions' `rotation(n)`, run."""
        return defined(self.text(str(dtype)), "rotation")(n)

    def text(self, dtype: str) -> list[str]:
        """The reproductions' `rotation(n)`, making the same angles (`dtype` torch's)."""
        from .repro import rotation_def  # the writer, which imports the layer that imports this

        return rotation_def(self, dtype)

    @property
    def said(self) -> str:
        return {
            "apart": "cos 1 and sin 0",
            "apart, whole": "cos 1 and sin 0",
            "apart, broadcast": "cos 1 and sin 0 over every dimension rotated",
            "cos_sin": "(cos, sin) = (1, 0)",
            "complex": "e^(i 0) = 1",
            "pairs": "cos 1 and sin 0 in a last axis of two",
        }[self.form]


def rotations(
    params: dict[str, bool], given: dict[str, Any], head_size: int, inputs: int = 1
) -> list[Rotary]:
    """The ways a layer whose forward takes `params` (each: whether it is required; the first
    `inputs` are x's) may take
    its rotation that the caller has not given, in the order to try them; none when it takes
    none. First under the names published layers give it, then, for a layer that cannot be
    called without arguments of other names (`rope`, `rope_cache`, `pos_emb`), each such
    argument in each form, and each two of them as cos and sin apart: the one the call takes
    is the one the layer reads its rotation from (layer_rules._first_call)."""
    open_ = still_open(params, given, inputs)
    return [*_by_name(set(params), given, head_size), *_by_shape(open_, head_size)]


def still_open(params: dict[str, bool], given: dict[str, Any], inputs: int = 1) -> list[str]:
    """The arguments after x's that the layer requires and the caller has not given."""
    return [n for n, required in list(params.items())[inputs:] if required and n not in given]


def _by_shape(open_: list[str], head_size: int) -> list[Rotary]:
    """The rotations the layer's required arguments `open_`, not given, may take."""
    one = [Rotary(n, form, head_size, by_shape=True) for n in open_ for form in FORMS_ANY]
    two = [
        Rotary(cos, form, head_size, sine, by_shape=True)
        for cos, sine in pairwise(open_)
        for form in ("apart", "apart, whole", "apart, broadcast")
    ]
    return [*one, *two]


def _by_name(params: set[str], given: dict[str, Any], head_size: int) -> list[Rotary]:
    apart = [
        Rotary(cos, form, head_size, sine)
        for cos, sine in APART.items()
        if {cos, sine} <= params and not {cos, sine} & set(given)
        for form in ("apart", "apart, whole", "apart, broadcast")
    ]
    return [
        *(
            Rotary(name, form, head_size)
            for name, forms in FORMS.items()
            if name in params and name not in given
            for form in forms
        ),
        *apart,
    ]


# the reproductions' text, and what the check runs the layer under when it keeps no angle
AT_ZERO_TEXT: str = """from torch.overrides import TorchFunctionMode

class AtZero(TorchFunctionMode):  # the layer's own rotation at angle 0: cos 1 and sin 0
    def __torch_function__(self, func, types, args=(), kwargs=None):
        if getattr(func, "__name__", "") in ("cos", "sin"):
            return (torch.ones_like if func.__name__ == "cos" else torch.zeros_like)(args[0])
        return func(*args, **(kwargs or {}))
"""
ON_EACH_CALL = "cos and sin made on each call"  # said in `zeroed` once one was answered


def _answering(said: list[str]) -> Any:
    """AtZero, noting in `said` that the layer asked for a cos or a sin."""
    at_zero = defined(AT_ZERO_TEXT.splitlines(), "AtZero")

    class Answering(at_zero):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            if getattr(func, "__name__", "") in ("cos", "sin") and ON_EACH_CALL not in said:
                said.append(ON_EACH_CALL)
            return super().__torch_function__(func, types, args, kwargs)

    return Answering


@contextmanager
def angles_at_zero(module: Any, runner: Any) -> Iterator[list[str]]:
    """Within: every angle `module` keeps for a rotation it makes itself set to angle 0 in
    place (see AT_ZERO); yields their names, and puts the values back after. A module that
    keeps none is run under AtZero (`runner.around`), and ON_EACH_CALL joins the names once
    it has asked for a cos or a sin."""
    import torch  # pyright: ignore[reportMissingImports]

    kept = [
        (f"{owner}.{name}".lstrip("."), value)
        for owner, child in module.named_modules()
        for name, value in [
            *vars(child).items(),
            *child._buffers.items(),
            *child._parameters.items(),
        ]
        if held_at(f"{owner}.{name}") and isinstance(value, torch.Tensor) and value.numel()
    ]
    saved = [value.detach().clone() for _, value in kept]
    with torch.no_grad():
        for name, value in kept:
            value.fill_(AT_ZERO[held_at(name) or ""])
    names = [name for name, _ in kept]
    runner.around = None if kept else _answering(names)
    try:
        yield names
    finally:
        runner.around = None
        with torch.no_grad():
            for (_, value), old in zip(kept, saved, strict=True):
                value.copy_(old)
