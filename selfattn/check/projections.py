"""An attention layer's own weights, read under the names published code gives them: the maps
from hidden states x to q, k, v (fused like nanoGPT's `c_attn` and timm's `qkv`, or separate
like `query` / `key` / `value` and `q_proj` / `k_proj` / `v_proj`, Linear or GPT-2's Conv1D),
the map out, the number of heads, a norm on x or on q and k; and what in the layer says it
is causal. From them, the layer's output in float64 with each head computed as a reference
variant, right or one of the known bugs.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, TypeGuard

import numpy as np

from .names import named
from .reference import Variant, Window

Array = np.ndarray


@dataclass(frozen=True)
class Affine:
    """y = x w + b, with w of shape (in, out), read from a torch Linear or a GPT-2 Conv1D."""

    w: Array
    b: Array

    def __call__(self, x: Array, dtype: type = np.float64) -> Array:
        return x.astype(dtype) @ self.w.astype(dtype) + self.b.astype(dtype)

    def columns(self, part: slice | Array) -> Affine:
        return Affine(self.w[:, part], self.b[part])


@dataclass(frozen=True)
class Norm:
    """A LayerNorm (or, `rms`, an RMSNorm) over the last axis, read from the layer."""

    w: Array
    b: Array
    eps: float
    rms: bool
    name: str
    # a GroupNorm: x (n, C) normalised over the positions and the C / groups channels of each
    # group, as an image layer's norm reads all its pixels; 0: over each position's C
    groups: int = 0

    def __call__(self, x: Array, dtype: type = np.float64) -> Array:
        x = x.astype(dtype)
        if self.groups:
            return self._grouped(x, dtype)
        if not self.rms:
            x = x - x.mean(axis=-1, keepdims=True)
        scale = np.sqrt((x * x).mean(axis=-1, keepdims=True) + dtype(self.eps))
        return x / scale * self.w.astype(dtype) + self.b.astype(dtype)

    def _grouped(self, x: Array, dtype: type) -> Array:
        g = x.reshape(x.shape[0], self.groups, -1)
        g = g - g.mean(axis=(0, 2), keepdims=True)
        g = g / np.sqrt((g * g).mean(axis=(0, 2), keepdims=True) + dtype(self.eps))
        return g.reshape(x.shape) * self.w.astype(dtype) + self.b.astype(dtype)


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
    q_norm: Norm | None = None  # QK-norm, over each head or over all heads at once
    k_norm: Norm | None = None
    # how x goes in: nn.MultiheadAttention takes (query, key, value), x three times, and
    # without batch_first wants (n, batch, C); a wrapper around one takes x once, in that
    # layout or as (batch, n, C), turned for the module (check_layer finds out which); a
    # layer of (x, context) or (x, y=None) attends to x itself when given x twice
    inputs: int = 1
    keywords: tuple[str, ...] = ()  # the keyword-only parameters x goes in as; (): by position
    image: bool = False  # x goes in as an image (batch, H, W, C): here n x 1, (batch, n, 1, C)
    channels_first: bool = False  # as an image (batch, C, H, W): here (batch, C, 1, n)
    time_first: bool = False
    holder: str = ""  # the attribute a thin wrapper holds the layer under; "": the target's own
    residual: bool = False  # the layer returns x + attention, as a block's first half does
    post_norm: bool = False  # and `norm` applied to that, not to x (the 2017 Transformer's)
    relu: bool = False  # and then through a ReLU (FuxiCTR's AutoInt layer)
    # the Set Transformer's MAB: each head's q added to its output (O = Q + A V, a residual
    # from the q map, not from x), and the map out as a feed-forward step, O + ReLU(out(O))
    q_residual: bool = False
    out_residual: bool = False
    # the one map q, k and v come from, and how its columns are read: which third is which
    # ("qkv" in order), or per head, (heads, 3, head_dim), as GPT-NeoX and BLOOM store them
    fused: Affine | None = None
    order: str = "qkv"
    per_head: bool = False
    innermost: bool = False  # the fused map's q, k, v columns in turn, (heads, head_dim, 3)
    # grouped-query attention: k and v have `kv_heads` heads, each serving a group of q heads
    # in turn (repeat_interleave); `tiled`, the q heads go round the kv heads (repeat)
    kv_heads: int = 0  # 0: as many as q
    tiled: bool = False
    cap: float = 0.0  # scores soft-capped as cap * tanh(s / cap) (Gemma 2), 0: not
    # scaled cosine attention (Swin v2): scores t_h cos(q, k) in head h, t_h these; (): not
    cosine: tuple[float, ...] = ()
    capped_by: str = ""  # the attribute that says so
    # the score scale the layer was built with, when not 1/sqrt(head size) nor a known bug's
    # and an attribute of it holds that value (timm's old `qk_scale`): read from the run; 0: none
    scale: float = 0.0
    scaled_by: str = ""  # the attribute that holds it, or the argument that passed it
    scale_passed: bool = False  # passed by the caller (`--arg`), not held by the layer
    # such a scale that a twin built with the constructor's defaults holds too: no choice but
    # a slip, a candidate scale-wrong (defaults.py); 0: none
    set_scale: float = 0.0
    # what the softmax normalised in the run, "keys" or "queries"; "none": no softmax ran;
    # "": not read
    axis: str = ""
    window: Window | None = None  # the local windows each query keeps to, found by probing

    @property
    def layout(self) -> str:
        """How x goes in, as a key of layer.LAYOUT_TEXT: "channels_first", "image",
        "time_first", or "" for (batch, n, C)."""
        held = {
            "channels_first": self.channels_first,
            "image": self.image,
            "time_first": self.time_first,
        }
        return next((k for k, on in held.items() if on), "")

    def rewired(self, order: str, per_head: bool, innermost: bool = False) -> Projections:
        """The same layer with the fused map's columns read another way: per head, or with
        the three parts innermost (einops' "b n (h d qkv)")."""
        if self.fused is None:
            return self
        groups = self.fused.w.shape[1] // 3 if innermost else self.heads if per_head else 1
        parts = dict(zip(order, _split3(self.fused, groups), strict=True))
        return replace(
            self,
            q=parts["q"],
            k=parts["k"],
            v=parts["v"],
            order=order,
            per_head=per_head,
            innermost=innermost,
        )

    @property
    def wiring(self) -> str:
        """How the fused map is read, when not as q, k, v side by side; else ""."""
        name = self.names.split(", ")[0]
        said = []
        if self.order != "qkv":
            said.append(f"`{name}`'s parts are used as {', '.join(self.order)}, not q, k, v")
        if self.per_head:
            said.append(f"`{name}` is read per head, as (heads, 3, head_dim)")
        if self.innermost:
            said.append(f"`{name}` holds q, k, v innermost, as (heads, head_dim, 3)")
        if self.tiled:
            said.append("the q heads take the k, v heads in turn (repeat, not repeat_interleave)")
        return "; ".join(said)

    @property
    def packed(self) -> bool:
        """Read from nn.MultiheadAttention's packed `in_proj_weight` (maybe in a wrapper)."""
        return self.names.split(", ")[0].endswith("in_proj_weight")

    @property
    def width(self) -> int:
        """C, the width of x."""
        return self.q.w.shape[0]

    @property
    def head_size(self) -> int:
        return self.q.w.shape[1] // self.heads

    def run(
        self,
        x: Array,
        variant: Variant,
        dtype: type = np.float64,
        cut: bool = False,
        mixed: bool = False,
    ) -> Array | None:
        """The layer's output on x (n, C) with each head computed as `variant`, as float64.

        `cut`: the heads are split as (n, C) reshaped to (heads, n, head_dim), across positions;
        `mixed`: they are joined as (heads, n, head_dim) reshaped to (n, C), the same way.
        """
        given = x
        if self.window and self.window.padded:  # the last block filled with x = 0, cut after
            x = np.concatenate([x, np.zeros((-len(x) % self.window.size, x.shape[1]))])
        x = self.norm(x, dtype) if self.norm is not None and not self.post_norm else x
        heads = self._heads(x, self._as_held(variant), dtype, cut)
        if heads is None:
            return None
        joined = np.stack(heads).reshape(x.shape[0], -1) if mixed else np.concatenate(heads, -1)
        joined = joined[: len(given)]
        with np.errstate(all="ignore"):
            joined = self._out(joined, dtype)
            if self.residual and joined.shape != given.shape:
                return None  # no residual from C to another width
            joined = joined + given.astype(dtype) if self.residual else joined
            joined = self.norm(joined, dtype) if self.post_norm and self.norm else joined
            joined = np.maximum(joined, 0) if self.relu else joined
        return np.asarray(joined, dtype=np.float64)

    @property
    def through_relu(self) -> bool:
        """The output has been through a ReLU somewhere: its derivative has kinks."""
        return self.relu or self.out_residual

    def _out(self, joined: Array, dtype: type) -> Array:
        """The map out on the joined heads, as a feed-forward step where the layer has one."""
        if self.out is None:
            return joined
        mapped = self.out(joined, dtype)
        return joined + np.maximum(mapped, 0) if self.out_residual else mapped

    def _as_held(self, variant: Variant) -> Variant:
        """`variant` with the layer's own soft cap and window, unless it has its own, and its
        own scale where it was built with one (not 1/sqrt(d)); scaled cosine keeps theirs."""
        variant = replace(variant, cap=self.cap) if self.cap and not variant.cap else variant
        variant = replace(variant, window=variant.window or self.window)
        own = self.scale and variant.scores == "sdpa" and len(self.cosine) != self.heads
        return replace(variant, scores="alpha", p=self.scale) if own else variant

    def _heads(self, x: Array, variant: Variant, dtype: type, cut: bool) -> list[Array] | None:
        """Each head's output on the normed x, or None where `variant` is undefined; a layer
        of scaled cosine attention scores head h with its own temperature."""
        cosine = len(self.cosine) == self.heads and variant.scores == "sdpa"
        kv = self.kv_heads or self.heads
        q = self._split(self.q(x, dtype), cut, self.heads)
        k, v = (self._split(p(x, dtype), cut, kv) for p in (self.k, self.v))
        q, k = self._qk_norm(q, self.q_norm, dtype), self._qk_norm(k, self.k_norm, dtype)
        heads = []
        for h in range(self.heads):
            j = h % kv if self.tiled else h // (self.heads // kv)
            each = replace(variant, scores="cosine", p=self.cosine[h]) if cosine else variant
            out = each.run(q[h], k[j], v[j], dtype)
            if out is None:
                return None
            if self.q_residual and out.shape != q[h].shape:
                return None
            heads.append(out + q[h] if self.q_residual else out)
        return heads

    def _qk_norm(self, t: Array, norm: Norm | None, dtype: type) -> Array:
        """`t` (heads, n, head_dim) normalised over each head, or over the heads joined."""
        if norm is None:
            return t
        if norm.w.shape[0] == t.shape[-1]:
            return norm(t, dtype)
        joined = norm(t.swapaxes(0, 1).reshape(t.shape[1], -1), dtype)
        return joined.reshape(t.shape[1], t.shape[0], -1).swapaxes(0, 1)

    @staticmethod
    def _split(t: Array, cut: bool, heads: int) -> Array:
        """(n, heads * size) as (heads, n, size); `cut`, reshaped across the positions."""
        n, size = t.shape[0], t.shape[1] // heads
        return t.reshape(heads, n, size) if cut else t.reshape(n, heads, size).swapaxes(0, 1)


@dataclass(frozen=True)
class Suspect:
    """One way a layer may compute: `variant` in every head, the heads split (`cut`) or
    joined (`mixed`) across the positions, or as they should be."""

    variant: Variant
    cut: bool = False
    mixed: bool = False

    @property
    def id(self) -> str | None:
        if self.cut:
            return "heads-split-wrong"
        return "heads-joined-wrong" if self.mixed else self.variant.id

    @property
    def reshaped(self) -> bool:
        """The heads go wrong, not the attention in them."""
        return self.cut or self.mixed

    @property
    def detail(self) -> str:
        if self.cut:
            back = " and joined back the same way" if self.mixed else ""
            return f"heads split as (batch, heads, n, head_dim) straight from (batch, n, C){back}"
        if self.mixed:
            return "heads joined as (batch, n, C) straight from (batch, heads, n, head_dim)"
        return self.variant.detail

    def run(self, proj: Projections, x: Array, dtype: type = np.float64) -> Array | None:
        return proj.run(x, self.variant, dtype, self.cut, self.mixed)


def slipped_widths(proj: Projections) -> list[tuple[int, str]]:
    """The widths of the layer besides the one q k^T contracts (the head size d, read from the
    run) whose 1/sqrt published layers have scaled by, each with how a report names it: the
    model width C (nanoGPT's lecture Head), the head count (`num_heads ** -0.5`, shipped in a
    vision library), and C / heads where q and k have heads of another width than that."""
    d, c, h = proj.head_size, proj.width, proj.heads
    said = {c: "C**-0.5 = {w}**-0.5, the model width", h: "heads**-0.5 = {w}**-0.5, the head count"}
    said.setdefault(c // h if c % h == 0 else d, "(C / heads)**-0.5 = {w}**-0.5")
    return [(w, what.format(w=w)) for w, what in said.items() if w not in (1, d)]


def as_float64(t: Any) -> Array:
    """A torch tensor's values as a float64 numpy array."""
    return t.detach().cpu().double().numpy()


def _affine(module: Any) -> Affine | None:
    """A Linear, a Conv1D (weight stored as (in, out)), or the first of a Sequential."""
    if getattr(module, "weight", None) is None and hasattr(module, "__getitem__"):
        module = next((m for m in module if getattr(m, "weight", None) is not None), None)
    stored_in_by_out = type(module).__name__ == "Conv1D"
    return _read(getattr(module, "weight", None), getattr(module, "bias", None), stored_in_by_out)


def _read(weight: Any, bias: Any, stored_in_by_out: bool = False) -> Affine | None:
    """A weight matrix and its bias (None: no bias) as an Affine; a torch weight is stored
    (out, in) unless it comes from a Conv1D."""
    if weight is None or not hasattr(weight, "detach") or weight.ndim != 2:
        return None
    w = as_float64(weight) if stored_in_by_out else as_float64(weight).T
    b = as_float64(bias) if bias is not None and hasattr(bias, "detach") else np.zeros(w.shape[1])
    return Affine(w, b) if b.shape == (w.shape[1],) else None


def find_projections(module: Any, part: bool = False) -> Projections | None:
    """The projections of an attention layer, or None when none is found under a known name.

    They may be the module's own, an nn.MultiheadAttention's packed `in_proj_weight`, or
    those of the one attention layer a thin wrapper holds (all its weights are that layer's:
    a module that adds a mask to an `attn` it calls, not a block with norms and an MLP), or
    that a block holds when the target is one `part` of it, a method other than forward.
    """
    if not hasattr(module, "named_modules"):
        return None
    own = _own_projections(module) or _heads_held(module)
    if own is not None:
        return own
    held = [
        (name, proj)
        for name, child in module.named_modules()
        if child is not module and (proj := _own_projections(child)) is not None
    ]
    if len(held) != 1:
        return None
    name, proj = held[0]
    # a thin wrapper only: a block with its own norms or MLP computes more than attention
    child = module.get_submodule(name)
    if not part and {id(w) for w in module.parameters()} != {id(w) for w in child.parameters()}:
        return None
    return replace(
        proj,
        names=", ".join(f"{name}.{n}" for n in proj.names.split(", ")),
        inputs=1,  # the wrapper takes x, and hands it on three times itself
        holder=name,
    )


def _heads_held(module: Any) -> Projections | None:
    """Heads kept as modules of their own, each with its q, k and v maps, joined and mapped
    out by the module's own map if it has one: the lecture's `MultiHeadAttention`, a
    ModuleList of `Head`s and `proj` (LLMs from scratch's wrapper has no map out). Read as
    one layer whose head h has the columns of the h-th."""
    for name, child in module.named_children():
        heads = _single_heads(child)
        if heads is None:
            continue
        q, k, v = (
            Affine(
                np.hstack([getattr(p, m).w for p in heads]),
                np.concatenate([getattr(p, m).b for p in heads]),
            )
            for m in "qkv"
        )
        out_name, out = _map_out(module, v.w.shape[1])
        # everything the module holds is those heads and that map: no norm, no MLP
        held = [child, *([getattr(module, out_name)] if out_name is not None else [])]
        if {id(w) for w in module.parameters()} != {id(w) for m in held for w in m.parameters()}:
            continue
        said = ", ".join(f"{name}[*].{n}" for n in heads[0].names.split(", "))
        said += f", {out_name}" if out_name is not None else ""
        return Projections(q, k, v, out, len(heads), said)
    return None


def _single_heads(child: Any) -> list[Projections] | None:
    """A ModuleList of one-head layers of one width and head size, each without a map out or
    a norm, as their projections; else None."""
    if type(child).__name__ != "ModuleList" or len(child) < 1:
        return None
    each = [_own_projections(head) for head in child]
    if any(p is None or p.heads != 1 or p.out is not None or p.norm for p in each):
        return None
    heads = [p for p in each if p is not None]
    return heads if len({(p.width, p.head_size) for p in heads}) == 1 else None


def _own_projections(module: Any) -> Projections | None:
    found = _maps_in(module)
    if found is None:
        return None
    (q, k, v), names, fused = found
    heads = _head_count(module, q.w.shape[1])
    size = q.w.shape[1] // heads
    kv_heads = k.w.shape[1] // size
    if k.w.shape[1] % size or heads % kv_heads or v.w.shape[1] % kv_heads:
        return None
    out_name, out = _map_out(module, heads * (v.w.shape[1] // kv_heads))
    names += f", {out_name}" if out_name is not None else ""
    per_head = (size, q.w.shape[1])
    capped_by = next((n for n in named("soft cap") if _positive(getattr(module, n, None))), "")
    packed = names.startswith("in_proj")
    return Projections(
        q,
        k,
        v,
        out,
        heads,
        names,
        _norm(module, named("norm"), (q.w.shape[0],)),
        _norm(module, named("q norm"), per_head),
        _norm(module, named("k norm"), per_head),
        inputs=3 if packed else 1,
        # nn.MultiheadAttention says batch_first; a layer of its own holding in_proj_weight
        # and saying nothing takes (batch, n, C), as layers do
        time_first=packed and getattr(module, "batch_first", True) is False,
        fused=fused,
        kv_heads=kv_heads,
        cap=float(getattr(module, capped_by)) if capped_by else 0.0,
        capped_by=capped_by,
    )


def _head_count(module: Any, inner: int) -> int:
    """How many heads `inner` columns of q hold: the first count the layer keeps under a
    published name, or the count its head size gives, that divides them; else 1."""
    counts = _kept(module, "heads")
    counts += [inner // s for s in _kept(module, "head size") if inner % s == 0]
    return next((h for h in counts if inner % h == 0), 1)


def _kept(module: Any, role: str) -> list[int]:
    """The counts the layer keeps under `role`'s published names, on itself or on the
    `config` it was built from and holds (LitGPT's `self.config.n_head`, Hugging Face's)."""
    holders = [module, getattr(module, "config", None)]
    found = (getattr(m, n, None) for m in holders for n in named(role))
    return [h for h in found if _count(h)]


# q, k, v; the attributes they were read from; the one map they come from, if one
Trio = tuple[tuple[Affine, Affine, Affine], str, Affine | None]


def _map_out(module: Any, joined: int) -> tuple[str | None, Affine | None]:
    """The module's map out of its `joined` heads, under the first published name that holds
    one of that width, and that name; (None, None) when it has none."""
    for name in named("map out"):
        candidate = _affine(getattr(module, name, None))
        if candidate is not None and candidate.w.shape[0] == joined:
            return name, candidate
    return None, None


def _split3(both: Affine, groups: int = 1) -> tuple[Affine, Affine, Affine]:
    """The three parts of a fused map, in the order its columns hold them: side by side, or
    (groups > 1) inside each of `groups` heads."""
    cols = np.arange(both.w.shape[1]).reshape(groups, 3, -1)
    first, second, third = (both.columns(cols[:, i].reshape(-1)) for i in range(3))
    return first, second, third


# the roles a layer's maps in are held under, tried in this order: one fused map, three
# maps apart, or q beside a fused k, v
MAPS_IN = ("fused map", "separate maps", "paired maps")


def _maps_in(module: Any) -> Trio | None:
    """q, k, v from nn.MultiheadAttention's packed `in_proj_weight` (3C, C) and
    `in_proj_bias`, else from the maps under the first published names that hold them."""
    both = _read(getattr(module, "in_proj_weight", None), getattr(module, "in_proj_bias", None))
    if both is not None and both.w.shape[1] % 3 == 0:
        return _split3(both), "in_proj_weight", both
    for role in MAPS_IN:
        for said in named(role):
            names = said if isinstance(said, tuple) else (said,)
            maps = [m for n in names if (m := _affine(_held(module, n))) is not None]
            if len(maps) < len(names):
                continue
            # a fused map holding fewer k, v heads than q heads: q, then k, v side by side
            grouped = _grouped(module, maps[0].w.shape[1]) if len(maps) == 1 else None
            fused = maps[0] if len(maps) == 1 and grouped is None else None
            if grouped is not None:
                maps = [maps[0].columns(slice(0, grouped)), maps[0].columns(slice(grouped, None))]
            qkv = split_maps(maps)
            if qkv is not None:
                return qkv, ", ".join(names), fused
    return None


def split_maps(maps: list[Affine]) -> tuple[Affine, Affine, Affine] | None:
    """q, k, v from maps of x: one fused map's thirds, q and a fused k, v's halves, or three
    maps; None when they do not fit. k and v may have fewer heads than q (grouped-query
    attention)."""
    if not maps or len({m.w.shape[0] for m in maps}) > 1:
        return None
    first, *rest = maps
    if len(maps) == 1:
        return _split3(first) if first.w.shape[1] % 3 == 0 else None
    if len(maps) == 2 and rest[0].w.shape[1] % 2 == 0:
        k, v = _halves(rest[0])
        return (first, k, v) if k.w.shape[1] <= first.w.shape[1] else None
    if len(maps) == 3 and rest[0].w.shape[1] <= first.w.shape[1]:
        return first, rest[0], rest[1]
    return None


def _halves(both: Affine) -> tuple[Affine, Affine]:
    half = both.w.shape[1] // 2
    return both.columns(slice(0, half)), both.columns(slice(half, None))


def _grouped(module: Any, width: int) -> int | None:
    """The width of q in a fused map of `width` columns holding fewer k, v
    heads than q heads (Phi-3's `qkv_proj`, gpt-fast's `wqkv`), from the head size and the k, v
    head count the layer keeps; None when it keeps neither or they do not add up to that."""
    sizes, kvs = _kept(module, "head size"), _kept(module, "k, v heads")
    if not sizes or not kvs:
        return None
    size, kv = sizes[0], kvs[0]
    q = width - 2 * kv * size
    if q <= kv * size or q % (kv * size):
        return None
    return q


def _count(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _positive(value: Any) -> bool:
    """A number above 0 (a soft cap of None or 0 caps nothing)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and value > 0


def _held(module: Any, dotted: str) -> Any:
    """The attribute a dotted name reaches (`query.linear`: labml.ai's Linear inside the
    module that splits q into heads), or None."""
    for name in dotted.split("."):
        module = getattr(module, name, None)
    return module


def held_norm(module: Any, width: int) -> Norm | None:
    """A LayerNorm or RMSNorm over x's width the layer holds under a published name."""
    return _norm(module, named("norm"), (width,))


def _norm(module: Any, names: tuple[str, ...], widths: tuple[int, ...]) -> Norm | None:
    """A LayerNorm or RMSNorm over one of `widths`, held under one of `names`."""
    for name in names:
        norm = getattr(module, name, None)
        kind = type(norm).__name__
        if "LayerNorm" not in kind and "RMSNorm" not in kind:
            continue
        weight, bias = getattr(norm, "weight", None), getattr(norm, "bias", None)
        shape: Any = getattr(norm, "normalized_shape", None) or getattr(weight, "shape", None)
        width = int(shape[-1]) if shape else 0
        w = as_float64(weight) if weight is not None else np.ones(width)
        b = as_float64(bias) if bias is not None else np.zeros(width)
        eps = getattr(norm, "eps", None) or getattr(norm, "variance_epsilon", None)
        if width in widths and w.shape == b.shape == (width,):
            return Norm(w, b, float(eps or np.finfo(np.float32).eps), "RMS" in kind, name)
    return None


def causal_intent(module: Any) -> str | None:
    """Why the layer is meant to hide the future, or None when nothing in it says so."""
    cls = type(module).__name__
    if "causal" in cls.lower():
        return f"its class is {cls}"
    for name in named("causal attribute"):
        if getattr(module, name, None) is True:
            return f"its `{name}` is True"
    for name, buf in getattr(module, "named_buffers", lambda: [])():
        if _triangular(as_float64(buf)):
            return f"its buffer `{name}` is a triangular mask"
    return None


def _triangular(m: Array) -> bool:
    """Whether a buffer is a square mask, 0/1 or additive, that hides one triangle."""
    while m.ndim > 2 and m.shape[0] == 1:
        m = m[0]
    if m.ndim != 2 or m.shape[0] != m.shape[1] or m.shape[0] < 2:
        return False
    values = set(np.unique(m).tolist())
    keep = m != 0 if values <= {0.0, 1.0} else m == 0 if (m < 0).any() else None
    if keep is None or keep.all() or not keep.any():
        return False
    return np.array_equal(keep, np.tril(keep, 1)) or np.array_equal(keep, np.triu(keep, -1))
