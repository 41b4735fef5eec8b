"""Reading a JAX layer from its jaxpr: the maps from x to q, k, v and out, the head count and
the score scale, found by their part in the computation (jax.make_jaxpr), whatever the layer
or its parameters are named.

The layer x -> y is traced once on x of shape (1, 5, C), and the jaxpr is run equation by
equation (calls to jitted functions and custom derivatives opened up) so that every value is
at hand. The softmax is the `exp` of scores less their max; back from the scores, through
masks and numbers, is the product of two values from x: the keys are the factor whose axis
the softmax normalises, q the other. v is what the product of the weights takes besides
them. Each comes from a map of x: a dot_general with a constant (a weight the layer closes
over) and an add of one (its bias). A product of a number with q or k on the way is the
scale.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from .frameworks import CallFailed
from .projections import Affine, Projections

PASS = {"reshape", "transpose", "convert_element_type", "copy", "broadcast_in_dim", "squeeze"}
PASS |= {"expand_dims", "copy_p"}
NUMBERS = {"mul", "div"}  # by a constant of one value: a scale
# taken through on the way back from the scores to their product (a mask or bias added,
# selected or clipped), and from a factor of the product to its map (a bias, a fused map split)
SCORES_THROUGH = PASS | {"add", "sub", "select_n", "max", "min"}
FACTOR_THROUGH = PASS | {"add", "split"}
WIDTHS = (32, 64, 16, 128, 256, 512, 768, 1024, 8)  # tried when the closure says nothing


@dataclass
class Eqn:
    name: str
    params: dict[str, Any]
    ins: list[int]
    outs: list[int]


@dataclass
class Flat:
    """A jaxpr run once, nested calls opened: every value by key, and the equations."""

    values: dict[int, Any] = field(default_factory=dict)
    eqns: list[Eqn] = field(default_factory=list)
    made: dict[int, Eqn] = field(default_factory=dict)  # key -> the equation that made it
    uses: dict[int, list[Eqn]] = field(default_factory=dict)
    of_x: set[int] = field(default_factory=set)  # the keys whose value depends on x
    x: int = 0

    def key(self, value: Any) -> int:
        k = len(self.values) + 1
        self.values[k] = value
        return k

    def run(self, jaxpr: Any, consts: list[Any], ins: list[int]) -> list[int]:
        env = dict(zip(jaxpr.invars, ins, strict=True))
        env |= {v: self.key(c) for v, c in zip(jaxpr.constvars, consts, strict=True)}
        for eqn in jaxpr.eqns:
            keys = [self._key_in(env, v) for v in eqn.invars]
            inner = eqn.params.get("jaxpr", eqn.params.get("call_jaxpr"))
            if inner is not None and hasattr(inner, "consts"):
                outs = self.run(inner.jaxpr, list(inner.consts), keys)
            else:
                outs = self.bind(eqn, keys)
            env.update(zip(eqn.outvars, outs, strict=True))
        return [self._key_in(env, v) for v in jaxpr.outvars]

    def _key_in(self, env: dict[Any, int], var: Any) -> int:
        """A variable's key, a literal (which has a `val`) kept as a new value."""
        return env[var] if not hasattr(var, "val") else self.key(var.val)

    def bind(self, eqn: Any, keys: list[int]) -> list[int]:
        """Run one primitive on the values at `keys` and note it: what made each output, what
        uses each input, and whether the outputs depend on x."""
        got = eqn.primitive.bind(*(self.values[k] for k in keys), **eqn.params)
        got = got if eqn.primitive.multiple_results else [got]
        outs = [self.key(g) for g in got]
        e = Eqn(eqn.primitive.name, dict(eqn.params), keys, outs)
        self.eqns.append(e)
        for k in outs:
            self.made[k] = e
        for k in keys:
            self.uses.setdefault(k, []).append(e)
        if any(k in self.of_x for k in keys):
            self.of_x.update(outs)
        return outs


@dataclass
class Read:
    """What the jaxpr showed."""

    proj: Projections
    scale: float | None  # the scores over q k^T, q and k as they left their maps
    axis: str  # "keys" (right) or "queries": what the softmax normalised


def flatten(fn: Any, width: int, times: int = 1) -> Flat:
    """The layer run on x given `times` times (x, (x, context) or (q, k, v)), opened up."""
    import jax  # pyright: ignore[reportMissingImports]
    import jax.numpy as jnp  # pyright: ignore[reportMissingImports]

    x = jnp.asarray(np.random.default_rng(0).standard_normal((1, 5, width)), jnp.float32)
    closed = jax.make_jaxpr(fn)(*[x] * times)
    flat = Flat()
    flat.x = flat.key(x)
    flat.of_x.add(flat.x)
    flat.run(closed.jaxpr, list(closed.consts), [flat.x] * times)
    return flat


def widths(fn: Any) -> list[int]:
    """The widths x may have: the first sides of the arrays the layer closes over, most
    common first, then usual widths."""
    import jax  # pyright: ignore[reportMissingImports]

    held = [c.cell_contents for c in getattr(fn, "__closure__", None) or ()]
    held += [v for v in vars(fn).values()] if hasattr(fn, "__dict__") else []
    held += list(getattr(fn, "weights", None) or ())  # a Keras layer's variables
    try:
        leaves = jax.tree_util.tree_leaves(held)
    except Exception:  # whatever a closure holds
        leaves = []
    sides = [int(a.shape[0]) for a in leaves if getattr(a, "ndim", 0) >= 2]
    found = sorted(set(sides), key=lambda c: -sides.count(c))
    return [*found, *(w for w in WIDTHS if w not in found)]


def read(flat: Flat) -> Read | None:
    """The layer's projections, scale and softmax axis from one run, or None when no softmax
    over the product of two maps of x is found."""
    found = _softmax(flat)
    if found is None:
        return None
    exp, scores, total = found
    after, product = _back_to_product(flat, scores)
    if product is None or len(total.params["axes"]) != 1:
        return None
    lhs, rhs = product.ins
    ndim = np.ndim(flat.values[scores])  # the product's, but for a batch axis of 1 squeezed
    axis = "keys" if total.params["axes"][0] == ndim - 1 else "queries"
    q_side, k_side = (lhs, rhs) if axis == "keys" else (rhs, lhs)
    q_map, q_pre = _back_to_map(flat, q_side)
    k_map, k_pre = _back_to_map(flat, k_side)
    v_map = _value_map(flat, exp.outs[0])
    if q_map is None or k_map is None or v_map is None:
        return None
    out = _map_out(flat)
    said = "q, k, v" + (" and out" if out is not None else "") + " maps read from the jaxpr"
    heads = _heads(flat, product)
    size, kv_width = q_map.w.shape[1] // heads, k_map.w.shape[1]
    # k and v may have fewer heads, each repeated for a group of q heads (grouped-query)
    if q_map.w.shape[1] % heads or kv_width % size or k_map.w.shape != v_map.w.shape:
        return None
    kv_heads = kv_width // size if kv_width < q_map.w.shape[1] else 0
    proj = Projections(q_map, k_map, v_map, out, heads, said, kv_heads=kv_heads)
    scale = after * q_pre * k_pre if None not in (after, q_pre, k_pre) else None  # type: ignore[operator]
    return Read(proj, scale, axis)


def _softmax(flat: Flat) -> tuple[Eqn, int, Eqn] | None:
    """The softmax's `exp` of a value of x, the scores it takes (before their max is taken
    off) and the `reduce_sum` of the exp; None when there is none."""
    exp = next((e for e in flat.eqns if e.name == "exp" and e.ins[0] in flat.of_x), None)
    if exp is None:
        return None
    shifted = flat.made.get(exp.ins[0])
    scores = shifted.ins[0] if shifted is not None and shifted.name == "sub" else exp.ins[0]
    total = next((e for e in flat.uses.get(exp.outs[0], []) if e.name == "reduce_sum"), None)
    return None if total is None else (exp, scores, total)


def _heads(flat: Flat, product: Eqn) -> int:
    """The head count: the size of the score product's batch axes over x's batch, at least 1."""
    (_contract, batch) = product.params["dimension_numbers"]
    lhs = flat.values[product.ins[0]]
    heads = math.prod(np.shape(lhs)[d] for d in batch[0]) // np.shape(flat.values[flat.x])[0]
    return max(heads, 1)


def _scalar(flat: Flat, key: int) -> float | None:
    value = np.asarray(flat.values[key])
    return float(value.reshape(-1)[0]) if key not in flat.of_x and value.size == 1 else None


def _number_by(e: Eqn, through: int) -> int | None:
    """The other operand when `e` scales the value `through` by it (times it, or `through`
    divided by it); None when `e` is no scaling of `through`."""
    if e.name not in NUMBERS or (e.name == "div" and through != e.ins[0]):
        return None  # a number over `through` is no scaling of it
    return e.ins[1] if through == e.ins[0] else e.ins[0]


def _rescaled(scale: float | None, c: float | None, name: str) -> float | None:
    """`scale` times or divided by the number c (by `mul` or `div`); None when either is
    unknown."""
    if scale is None or c is None:
        return None
    return scale * c if name == "mul" else scale / c


def _back_to_product(flat: Flat, key: int) -> tuple[float | None, Eqn | None]:
    """From the scores back to the product of two values of x: what scaled them after it."""
    scale: float | None = 1.0
    for _ in range(32):
        e = flat.made.get(key)
        if e is None:
            return scale, None
        mine = [k for k in e.ins if k in flat.of_x]
        if e.name == "dot_general" and len(mine) == 2:
            return scale, e
        if len(mine) != 1:
            return scale, None
        number = _number_by(e, mine[0])
        if number is not None:
            scale = _rescaled(scale, _scalar(flat, number), e.name)
        elif e.name not in SCORES_THROUGH:
            return scale, None  # a mask or bias is added, selected or clipped: taken through
        key = mine[0]
    return scale, None


def _back_to_map(flat: Flat, key: int) -> tuple[Affine | None, float | None]:
    """The map of x a factor of the scores comes from, and the number it was scaled by."""
    scale: float | None = 1.0
    part: slice | None = None  # the columns of a fused map split on its last axis
    for _ in range(32):
        e = flat.made.get(key)
        if e is None:
            return None, scale
        mine = [k for k in e.ins if k in flat.of_x]
        if len(mine) != 1:
            return None, scale
        affine = _affine(flat, e)
        if affine is not None:
            return (affine if part is None else affine.columns(part)), scale
        if e.name == "split":
            part = _split_columns(flat, e, key) if part is None else None  # split once only
            if part is None:
                return None, scale
        number = _number_by(e, mine[0])
        if number is not None:
            c = _scalar(flat, number)
            if c is None:
                return None, None  # scaled by a tensor (a rotation): not read
            scale = _rescaled(scale, c, e.name)
        elif e.name not in FACTOR_THROUGH:
            return None, scale
        key = mine[0]
    return None, scale


def _split_columns(flat: Flat, e: Eqn, key: int) -> slice | None:
    """The columns `key` takes of the value `e` splits on its last axis (a fused map's);
    None when the split is on another axis."""
    if e.params["axis"] != np.ndim(flat.values[e.ins[0]]) - 1:
        return None
    sizes, i = e.params["sizes"], e.outs.index(key)
    return slice(sum(sizes[:i]), sum(sizes[: i + 1]))


def _affine(flat: Flat, e: Eqn) -> Affine | None:
    """y = x W (+ b) when `e` is the bias added to x W, or x W itself, x being the input."""
    if e.name == "add":
        inner = next((flat.made.get(k) for k in e.ins if k in flat.of_x), None)
        bias = next((k for k in e.ins if k not in flat.of_x), None)
        if inner is None or bias is None or inner.name != "dot_general":
            return None
        found = _weight(flat, inner)
        if found is None:
            return None
        b = np.asarray(flat.values[bias], dtype=np.float64).reshape(-1)
        return Affine(found, b) if b.shape == (found.shape[1],) else None
    if e.name != "dot_general":
        return None
    w = _weight(flat, e)
    return None if w is None else Affine(w, np.zeros(w.shape[1]))


def _weight(flat: Flat, e: Eqn) -> np.ndarray | None:
    """W as (C, out) when `e` contracts x's last axis with a constant's first (or, 2-D, last)."""
    x_key, w_key = e.ins
    if w_key in flat.of_x or not _is_x(flat, x_key):
        return None
    (_lc, rc), _ = e.params["dimension_numbers"]
    w = np.asarray(flat.values[w_key], dtype=np.float64)
    width = np.shape(flat.values[flat.x])[-1]
    if tuple(rc) == (0,) and w.shape[0] == width:
        return w.reshape(width, -1)
    if w.ndim == 2 and tuple(rc) == (1,) and w.shape[1] == width:
        return w.T
    return None


def _is_x(flat: Flat, key: int) -> bool:
    """x itself, or x reshaped, cast or normalised by nothing else."""
    for _ in range(8):
        if key == flat.x:
            return True
        e = flat.made.get(key)
        if e is None or e.name not in PASS:
            return False
        key = e.ins[0]
    return False


def _value_map(flat: Flat, weights: int) -> Affine | None:
    """The map v comes from: the product that takes the weights (after their sum divides
    them) and a value of x."""
    seen = {weights}
    for e in flat.eqns:
        if not seen & set(e.ins):
            continue
        if e.name == "dot_general":
            other = next((k for k in e.ins if k not in seen), None)
            return _back_to_map(flat, other)[0] if other is not None else None
        seen.update(e.outs)
    return None


def _map_out(flat: Flat) -> Affine | None:
    """The last map of a value of x by a constant, whose input is not x: the map out."""
    last = [e for e in flat.eqns if e.name == "dot_general" and e.ins[1] not in flat.of_x]
    if not last or _is_x(flat, last[-1].ins[0]):
        return None
    e = last[-1]
    w = _rows_first(np.asarray(flat.values[e.ins[1]], dtype=np.float64), e)
    bias = next((u for u in flat.uses.get(e.outs[0], []) if u.name == "add"), None)
    b = np.zeros(w.shape[1])
    if bias is not None:
        k = next((k for k in bias.ins if k not in flat.of_x), None)
        got = np.asarray(flat.values[k], dtype=np.float64).reshape(-1) if k else b
        b = got if got.shape == b.shape else b
    return Affine(w, b)


def _rows_first(w: np.ndarray, e: Eqn) -> np.ndarray:
    """W of the product `e` as (in, out), its rows in the order of the input's axes they meet:
    (heads, size) merged, whatever order W keeps them in (Keras's GroupQueryAttention
    contracts (size, heads) with axes (1, 0) of its (heads, size, C) kernel)."""
    (lc, rc), _ = e.params["dimension_numbers"]
    into = [r for _, r in sorted(zip(lc, rc, strict=True))]
    w = np.transpose(w, [*into, *(d for d in range(w.ndim) if d not in rc)])
    return w.reshape(math.prod(w.shape[: len(rc)]), -1)


def read_jax_layer(fn: Any, runner: Any, ways: list[int]) -> Read | None:
    """A JAX layer's projections read from its jaxpr, on the worker thread, x given as many
    times as `ways` says it may be; None when it is no layer of x this can read."""
    for width, times in itertools.product(widths(fn)[:6], ways):
        try:
            flat = runner.call_other(flatten, fn, width, times)
        except CallFailed:  # another width or way, or no layer of x at all
            continue
        found = read(flat) if isinstance(flat, Flat) else None
        if found is not None:
            found.proj = replace(found.proj, inputs=times)
            return found
    return None
