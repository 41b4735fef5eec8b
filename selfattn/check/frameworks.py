"""Arrays in and out of the target: numpy, torch, JAX, tinygrad or MLX, and the tensor layouts."""

from __future__ import annotations

import importlib.util
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .reference import BFLOAT16, FLOAT16, FLOAT32, Precision

Array = np.ndarray


class CallFailed(Exception):
    """One call raised or returned something unusable; the message is a one-line summary."""


ANSI = re.compile(r"\x1b\[[0-9;]*m")


def summarize(exc: BaseException) -> str:
    """`TypeError: message`, one line, short: what a report shows instead of a traceback."""
    if isinstance(exc, CallFailed):
        return str(exc)
    text = " ".join(ANSI.sub("", str(exc)).split())  # Keras puts bold in its messages
    text = text if len(text) <= 200 else text[:197] + "..."
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


# -- reading outputs -------------------------------------------------------------------------


@dataclass
class Returned:
    """What the target returned: a numpy array when it was an array of any framework."""

    value: Any
    dtype: str  # the dtype the target returned, "" when it had none
    pair: bool = False  # the output was the first of a tuple, (output, weights)


def _arraylike(x: Any) -> bool:
    return hasattr(x, "shape") or hasattr(x, "__array__") or hasattr(x, "numpy")


def materialize(out: Any) -> Returned:
    """Read an array of any framework into numpy.

    Runs on the thread that called the target: MLX arrays can only be read there. A pair
    (output, weights), as many kernels return, counts as its first element.
    """
    pair = isinstance(out, tuple | list) and bool(out) and _arraylike(out[0])
    out = out[0] if pair else out
    dtype = str(getattr(out, "dtype", ""))
    if isinstance(out, np.ndarray):
        return Returned(out, dtype, pair)
    try:
        for framework in FRAMEWORKS.values():  # a library that reads its own arrays
            read = framework.read(out) if framework.read else None
            if read is not None:
                return Returned(read, dtype, pair)
        to_numpy = getattr(out, "numpy", None)
        if callable(to_numpy):  # tinygrad, MLX, TensorFlow
            return Returned(np.asarray(to_numpy()), dtype, pair)
        if hasattr(out, "__array__"):  # JAX, MLX, anything else that converts
            return Returned(np.asarray(out), dtype, pair)
    except Exception as exc:
        why = f"returned a {type(out).__name__} that cannot be read: {summarize(exc)}"
        raise CallFailed(why) from exc
    return Returned(out, dtype, pair)


def precision(dtype: str) -> Precision:
    """The low precision to measure tolerances in, from the dtype the target returned."""
    if "bfloat16" in dtype:
        return BFLOAT16
    if "float16" in dtype or dtype.endswith("half"):
        return FLOAT16
    return FLOAT32


def rounded_inside(out: np.ndarray) -> Precision | None:
    """The half precision a wide output was rounded to inside the target, or None.

    Published modules cast to half for the matmuls and back to the input's dtype at the end
    (`.half()` ... `.to(dtype)`): the output says float64, but every value is a float16 (or a
    bfloat16). A value computed in float32 or float64 lands on the half grid by chance once in
    2^13 at best, so a whole output of fractions there is no accident. Outputs of whole
    numbers or one repeated value say nothing.
    """
    x = np.asarray(out, dtype=np.float64)
    x = x[np.isfinite(x)]
    if x.size < 4 or np.all(x == np.round(x)) or np.all(x == x[0]):
        return None
    single = x.astype(np.float32)
    if np.any(single != x):
        return None
    if np.all(single.view(np.uint32) & 0xFFFF == 0):  # bfloat16: the top half of a float32
        return BFLOAT16
    with np.errstate(over="ignore"):
        if np.all(x.astype(np.float16) == x):
            return FLOAT16
    return None


# -- the array libraries ---------------------------------------------------------------------


def _torch(x: Array, dtype: str) -> Any:
    import torch  # pyright: ignore[reportMissingImports]

    t = torch.from_numpy(x)
    return t.to(torch.bfloat16) if dtype == "bfloat16" and t.is_floating_point() else t


def _jax(x: Array, dtype: str) -> Any:
    import jax.numpy as jnp  # pyright: ignore[reportMissingImports]

    return jnp.asarray(x)


def _tinygrad(x: Array, dtype: str) -> Any:
    from tinygrad import Tensor  # pyright: ignore[reportMissingImports]

    return Tensor(x)


def _mlx(x: Array, dtype: str) -> Any:
    import mlx.core as mx  # pyright: ignore[reportMissingImports]

    return mx.array(x)


def _read_torch(out: Any) -> Array | None:
    """A torch tensor (anything with detach and cpu) as float64 numpy; None for the rest."""
    if not (hasattr(out, "detach") and hasattr(out, "cpu")):
        return None
    import torch  # pyright: ignore[reportMissingImports]

    return out.detach().cpu().to(torch.float64).numpy()


@dataclass(frozen=True)
class Framework:
    """One array library: how the check makes its arrays and reads them back, and how a
    reproduction writes them. A new library is one entry of FRAMEWORKS."""

    imports: str  # the line a reproduction imports it with
    lib: str  # the module a reproduction calls ones, tril, where on (numpy's, when it has none)
    make: Callable[[Array, str], Any]  # a numpy array, the dtype asked for -> its array
    literal: str  # an array written out: {body} nested lists, {dtype} the float width
    from_numpy: str  # a float64 numpy expression {expr} (cast to the width: {cast}) handed over
    wrap: str = "{}"  # a `lib` expression made this library's array
    array: str = ""  # the function making an array from nested lists; `lib.array` if empty
    # the additive mask for the boolean keep mask {keep} (0 kept, -inf blocked)
    additive: str = "{wrap_where}"
    read: Callable[[Any], Array | None] | None = None  # its output as numpy (None: generic)
    # how a layer's reproduction writes the largest entry of |{}|, a copy of x, and new
    # random values shaped as {}
    largest: str = "np.abs({}).max()"
    copy: str = "x.copy()"
    fresh: str = "np.random.default_rng(1).standard_normal({}.shape)"
    # a layer's input: standard normal values of {shape} from {seed} in {dtype}; the keep
    # mask of n positions; the additive mask of {keep} with {dtype}'s lowest value (a
    # library whose layers are checked has them)
    draw: str = "np.random.default_rng({seed}).standard_normal(({shape})).astype(np.{dtype})"
    triangle: str = "np.tril(np.ones((n, n), dtype=bool))"
    lowest: str = "np.where({keep}, 0.0, np.finfo(np.{dtype}).min).astype(np.{dtype})"
    ones: str = "{keep}.astype(np.{dtype})"  # 1.0 = may attend, 0.0 = hidden

    def mask(self, kind: str, keep: str) -> str:
        """Source text for the mask of convention `kind` from the keep expression `keep`."""
        where = f"{self.lib}.where({keep}, 0.0, -{self.lib}.inf)"
        made = {
            "block": self.wrap.format(f"~{keep}"),
            "additive": self.additive.format(keep=keep, wrap_where=self.wrap.format(where)),
        }
        return made.get(kind, self.wrap.format(keep))

    def full_mask(self, kind: str | None, size: str) -> str:
        """Source text for a mask of `size` keeping every key (a required mask not under
        test), None where the mask takes none."""
        if kind in (None, "unusable", "ignored"):
            return "None"
        if kind == "additive":
            return f"{self.lib}.zeros(({size}))"
        return f"{'~' if kind == 'block' else ''}{self.lib}.ones(({size}), dtype=bool)"

    def array_text(self, body: str) -> str:
        """Source text making a boolean array from the nested lists `body`."""
        return f"{self.array or self.lib + '.array'}({body})"


FRAMEWORKS: dict[str, Framework] = {
    "numpy": Framework(
        "import numpy as np",
        "np",
        lambda x, dtype: x,
        "np.array({body}, dtype=np.{dtype})",
        "{cast}",
    ),
    "torch": Framework(
        "import torch",
        "torch",
        _torch,
        "torch.tensor({body}, dtype=torch.{dtype})",
        "torch.from_numpy({expr}).to(torch.{dtype})",
        array="torch.tensor",
        additive="torch.zeros_like({keep}, dtype=torch.float).masked_fill(~{keep}, float('-inf'))",
        read=_read_torch,
        largest="({}).abs().max()",
        copy="x.clone()",
        fresh="torch.randn_like({})",
        draw="torch.randn({shape}, generator=torch.Generator().manual_seed({seed}), "
        "dtype=torch.{dtype})",
        triangle="torch.ones(n, n, dtype=torch.bool).tril()",
        ones="{keep}.to(torch.{dtype})",
        lowest="torch.zeros({keep}.shape, dtype=torch.{dtype}).masked_fill(~{keep}, "
        "torch.finfo(torch.{dtype}).min)",
    ),
    "jax": Framework(
        "import jax.numpy as jnp",
        "jnp",
        _jax,
        "jnp.array({body}, dtype=jnp.{dtype})",
        "jnp.asarray({cast})",
    ),
    "tinygrad": Framework(
        "from tinygrad import Tensor",
        "np",
        _tinygrad,
        "Tensor({body})",
        "Tensor({cast})",
        wrap="Tensor({})",
    ),
    "mlx": Framework(
        "import mlx.core as mx", "np", _mlx, "mx.array({body})", "mx.array({cast})", "mx.array({})"
    ),
}
# the libraries a target's own code may be written in (numpy is tried for every target)
OWN = tuple(name for name in FRAMEWORKS if name != "numpy")


def available(framework: str) -> bool:
    """True when `framework` can be imported; importing it is left to the first use."""
    if framework in sys.modules:
        return True
    try:
        return importlib.util.find_spec(framework) is not None
    except (ImportError, ValueError):
        return False


@dataclass(frozen=True)
class Backend:
    """How to hand arrays to the target: which framework, and at which float width."""

    name: str  # a key of FRAMEWORKS
    dtype: str  # "float64" | "float32"

    @property
    def framework(self) -> Framework:
        return FRAMEWORKS[self.name]

    def floats(self, x: Array) -> Any:
        # a fresh copy: targets may mutate; numpy has no bfloat16, torch casts from float32
        x = np.ascontiguousarray(x, dtype=self.numpy_dtype).copy()
        return self._wrap(x)

    @property
    def numpy_dtype(self) -> str:
        return "float32" if self.dtype == "bfloat16" else self.dtype

    def bools(self, x: Array) -> Any:
        return self._wrap(np.array(x, dtype=bool))

    def _wrap(self, x: Array) -> Any:
        try:
            return self.framework.make(x, self.dtype)
        except ImportError as exc:  # installed but broken, as MLX is off Apple silicon
            raise CallFailed(f"cannot make {self.name} arrays: {summarize(exc)}") from exc

    def literal(self, x: Array) -> str:
        """Source text that rebuilds the float array `x`, for the reproductions."""
        return self.framework.literal.format(body=repr(_plain(x)), dtype=self.dtype)

    def from_numpy(self, expr: str) -> str:
        """Source text turning the float64 numpy expression `expr` into this backend's array."""
        cast = f"{expr}.astype(np.{self.dtype})" if self.dtype != "float64" else expr
        return self.framework.from_numpy.format(expr=expr, cast=cast, dtype=self.dtype)

    @property
    def lib(self) -> str:
        """How a reproduction names the framework's array module."""
        return self.framework.lib

    @property
    def label(self) -> str:
        return f"{self.name} {self.dtype}"


def _plain(x: Array) -> Any:
    """Nested lists, with ints where the entries are whole numbers (shorter to read)."""
    if np.all(np.isfinite(x)) and np.all(x == np.round(x)):
        return np.asarray(x, dtype=np.int64).tolist()
    return np.round(np.asarray(x, dtype=np.float64), 6).tolist()


# JAX computes in float32 unless x64 is switched on; tinygrad and MLX are float32 first.
WIDTHS = {"numpy": ("float64", "float32"), "torch": ("float64", "float32")}


def framework_of(fn: Callable[..., Any]) -> str | None:
    """The array framework the target's code uses, read from the names its module imported."""
    if "torch" in sys.modules and isinstance(fn, sys.modules["torch"].nn.Module):
        return "torch"
    own = str(getattr(fn, "__module__", None) or "").split(".")[0]
    if own in OWN and not hasattr(fn, "__globals__"):  # a builtin: mlx.core.fast's
        return own
    scopes = []
    for target in (fn, getattr(fn, "__func__", None), getattr(fn, "__wrapped__", None)):
        scopes.append(getattr(target, "__globals__", None))
    for method in ("forward", "__call__"):
        scopes.append(getattr(getattr(type(fn), method, None), "__globals__", None))
    for scope in filter(None, scopes):
        for value in scope.values():
            module = getattr(value, "__module__", None) or getattr(value, "__name__", "")
            root = str(module).split(".")[0]
            if root in OWN:
                return root
    return None


def keras_backend(fn: Any) -> str | None:
    """The backend a Keras layer runs on (torch, jax, tensorflow), None for anything else."""
    if not any(c.__module__.startswith("keras.") for c in type(fn).__mro__):
        return None
    return sys.modules["keras"].backend.backend()


def backends_for(fn: Callable[..., Any]) -> list[Backend]:
    """Backends to try, in order: the target's own framework first, then numpy, then torch."""
    own = framework_of(fn)
    names = [own] if own else []
    names += [n for n in ("numpy", "torch") if n not in names]
    return [
        Backend(name, width)
        for name in names
        if name == "numpy" or available(name)
        for width in WIDTHS.get(name, ("float32",))
    ]


# -- layouts ---------------------------------------------------------------------------------

# How one (n, d) sequence is handed over, tried in this order; the 4-D names say which axis is
# which (b batch, h heads, n positions, d features).
LAYOUTS = {
    "nd": "(n, d)",
    "bnd": "(1, n, d)",
    "bhnd": "(1, 1, n, d)",
    "bnhd": "(1, n, 1, d)",
}


def to_layout(x: Array, layout: str) -> Array:
    """An (n, d) or (batch, heads, n, d) array in `layout`."""
    if x.ndim == 2:
        index = {"nd": (), "bnd": (None,), "bhnd": (None, None), "bnhd": (None, slice(None), None)}
        return x[index[layout]]
    if layout == "bnd":
        return x.reshape(-1, *x.shape[-2:])
    return x.swapaxes(1, 2) if layout == "bnhd" else x


def from_layout(out: Array, layout: str, shape: tuple[int, ...]) -> Array:
    """The output back in (n, d_v) or (batch, heads, n, d_v) `shape`, or CallFailed.

    4-D kernels may answer in the other 4-D layout (Hugging Face's eager attention returns
    (b, n, h, d) for (b, h, n, d) input) or with the heads merged, (b, n, h * d).
    """
    answer = answered_in(tuple(out.shape), layout, shape)
    if answer == "merged":
        b, h, n, dv = shape if len(shape) == 4 else (1, 1, *shape)
        return _back(out.reshape(b, n, h, dv), "bnhd", shape)
    if answer == "batch":
        return out[0]
    if answer is None:
        want = to_layout(np.empty(shape), layout).shape
        raise CallFailed(f"returned shape {tuple(out.shape)}, expected {want}")
    return _back(out, answer, shape)


def answered_in(got: tuple[int, ...], layout: str, shape: tuple[int, ...]) -> str | None:
    """The layout of an output of shape `got` to input in `layout`: the same, the other 4-D
    one, "merged" heads (b, n, h * d), a leading "batch" of one, or None when none fits."""
    if got == to_layout(np.empty(shape), layout).shape:
        return layout
    if layout in ("bhnd", "bnhd"):
        other = "bnhd" if layout == "bhnd" else "bhnd"
        if got == to_layout(np.empty(shape), other).shape:
            return other
        b, h, n, dv = shape if len(shape) == 4 else (1, 1, *shape)
        if got == (b, n, h * dv):
            return "merged"
    if layout == "nd" and len(shape) == 2 and got == (1, *shape):
        return "batch"
    return None


def _back(out: Array, layout: str, shape: tuple[int, ...]) -> Array:
    if len(shape) == 2:
        return out.reshape(shape)
    if layout == "bnd":
        return out.reshape(shape)
    return out.swapaxes(1, 2) if layout == "bnhd" else out


def layout_text(layout: str) -> str:
    """How `q` is written in a reproduction to put it in `layout`."""
    return {"nd": "", "bnd": "[None]", "bhnd": "[None, None]", "bnhd": "[None, :, None]"}[layout]


# How a reproduction takes the (n, d) output back from an output answered in each layout.
BACK_TEXT = {
    "nd": "",
    "bnd": "[0]",
    "bhnd": "[0, 0]",
    "bnhd": "[0, :, 0]",
    "merged": "[0]",
    "batch": "[0]",
}
