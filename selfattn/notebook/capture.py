"""q, k and v of one head of a real torch model, read by hooks while the model runs.

An attention layer computes its queries, keys and values with projections it names in one of
a few ways: one fused Linear to all three (GPT-2's `c_attn`, `qkv`, `Wqkv`), three Linears
(`q_proj`/`k_proj`/`v_proj`, BERT's `query`/`key`/`value`, `to_q`...), or torch's own
`nn.MultiheadAttention` with its packed `in_proj_weight`. A forward hook on the projection
keeps what it returned; nothing in the model changes. A rotary layer (Llama, Mistral, Qwen2 in
Hugging Face transformers) is handed its rotation as `position_embeddings=(cos, sin)`: a
pre-hook keeps it and q and k are rotated as the layer's `apply_rotary_pos_emb` rotates them,
so the plane's weights are the layer's. A layer that rotates or normalises q and k some other
way is refused with one line: a map drawn from unrotated q and k would be silently wrong.
torch is imported only when a model is run.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

FUSED = ("c_attn", "qkv", "Wqkv", "qkv_proj")  # one Linear to [q | k | v], heads inside each
SEPARATE = (
    ("q_proj", "k_proj", "v_proj"),
    ("query", "key", "value"),
    ("to_q", "to_k", "to_v"),
    ("q", "k", "v"),
)
HEADS = ("num_heads", "n_head", "num_attention_heads", "n_heads", "heads")
# grouped-query attention: fewer k, v heads than q heads, each shared by a group of q heads
KV_HEADS = ("num_key_value_heads", "n_kv_heads", "num_kv_heads", "n_key_value_heads")
HEAD_DIM = ("head_dim", "d_head", "attention_head_size")
# signs that a layer changes q and k after projecting them in a way the hooks do not see
ROTARY = ("rotary_emb", "rotary_dim", "rotary_ndims", "embed_positions", "rotary_fn")
ROPE_CONFIG = ("rope_theta", "rope_parameters", "rope_scaling", "rotary_dim", "rotary_pct")
QK_NORM = ("q_norm", "k_norm", "q_layernorm", "k_layernorm")


def _projections(module: Any) -> tuple[str, ...] | None:
    """The names of the module's q, k, v projections (one name when fused), or None."""
    children = dict(module.named_children())
    if type(module).__name__ == "MultiheadAttention":
        return ("in_proj_weight",)
    for name in FUSED:
        if name in children:
            return (name,)
    for names in SEPARATE:
        if all(n in children for n in names):
            return names
    return None


def attention_layers(model: Any) -> list[Any]:
    """Every attention module of `model` in the order it holds them: one per layer in a
    transformer, found by its projections (outermost first: an attention module inside an
    attention module is one layer)."""
    found: list[tuple[str, Any]] = []
    for name, module in model.named_modules():
        if _projections(module) and not any(name.startswith(f"{p}.") for p, _ in found):
            found.append((name, module))
    return [module for _, module in found]


def head_count(module: Any, heads: int | None = None) -> int:
    """How many heads the module splits into: `heads`, or an attribute the module names it by
    (`num_heads`, `n_head`, ..., or in its `config`)."""
    if heads is not None:
        return whole_heads(heads)
    for owner in (module, getattr(module, "config", None)):
        for name in HEADS:
            value = getattr(owner, name, None)
            if isinstance(value, int) and value > 0:
                return value
    raise ValueError(f"{type(module).__name__} does not say how many heads it has: pass heads=")


def whole_heads(heads: Any) -> int:
    """`heads=` as a user gives it: a whole number of heads, at least 1 (True, 2.7 refused)."""
    if isinstance(heads, bool) or not isinstance(heads, numbers.Integral) or heads < 1:
        raise ValueError(
            f"heads= is how many heads the layer has, a whole number ≥ 1, not {heads!r}"
        )
    return int(heads)


def _said(module: Any, names: tuple[str, ...]) -> int | None:
    """The first positive int the module or its config names by one of `names`."""
    for owner in (module, getattr(module, "config", None)):
        for name in names:
            value = getattr(owner, name, None)
            if isinstance(value, int) and value > 0:
                return value
    return None


def _widths(module: Any, total: int, heads: int | None) -> list[int]:
    """How a fused projection's output splits into q, k and v: in three equal parts, or, for
    grouped-query attention, q's heads then the fewer k and v heads the module names."""
    kv = _said(module, KV_HEADS)
    count = whole_heads(heads) if heads is not None else _said(module, HEADS)
    if kv and count and kv != count:
        d = (_said(module, HEAD_DIM) or 0) or total // (count + 2 * kv)
        return [count * d, kv * d, kv * d]
    return [total // 3] * 3


def split_heads(q: Any, k: Any, v: Any, count: int, d_head: int | None = None) -> list[np.ndarray]:
    """q, k, v `(batch, n, width)` as `(batch, heads, n, d_head)` arrays: q in `count` heads,
    k and v in as many heads of the same size as their width holds (fewer, under grouped-query
    attention, each shared by count / that many q heads). An error names what it found."""
    width = q.shape[-1]
    d = d_head or width // count
    if width != count * d:
        raise ValueError(f"q is {width} wide: not {count} heads of {d}; pass heads= (q's heads)")
    split = []
    for name, x in zip("qkv", (q, k, v), strict=True):
        x = np.asarray(x, dtype=np.float32)
        x = x[None] if x.ndim == 2 else x  # (n, d): a batch of one
        b, n, wide = x.shape
        if wide % d or count % (wide // d or 1) or not wide // d:
            raise ValueError(
                f"{name} is {wide} wide, q is {width} wide in {count} heads of {d}: expected "
                f"{name} in heads of {d} that the {count} q heads share evenly (grouped-query "
                "attention), as many or fewer; pass heads= (q's heads) if that is wrong"
            )
        split.append(x.reshape(b, n, wide // d, d).transpose(0, 2, 1, 3))
    return split


def rotate(x: np.ndarray, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    """`x` `(batch, heads, n, d)` rotated as Hugging Face's `apply_rotary_pos_emb` does, with
    cos, sin `(batch, n, r)`: x·cos + rotate_half(x)·sin on the first r dims (r < d: partial
    rotary, as Phi and GPT-NeoX rotate), the rest as they are."""
    r = cos.shape[-1]
    c, s, part = cos[:, None], sin[:, None], x[..., :r]
    half = np.concatenate([-part[..., r // 2 :], part[..., : r // 2]], axis=-1)
    return np.concatenate([part * c + half * s, x[..., r:]], axis=-1)


def _unseen_change(module: Any, rotated: bool) -> str | None:
    """Why q and k as projected are not what the layer multiplies, when the hooks cannot
    follow it: q/k norms, or a rotary embedding not passed as `position_embeddings`."""
    children = dict(module.named_children())
    norms = [name for name in QK_NORM if name in children]
    if norms:
        return f"it normalises q and k after projecting them ({', '.join(norms)})"
    if rotated:
        return None
    config = getattr(module, "config", None)
    said = [n for n in ROTARY if hasattr(module, n)] + [
        n for n in ROPE_CONFIG if getattr(config, n, None) is not None
    ]
    if said:
        return f"it rotates q and k (rotary: {', '.join(said)}) without position_embeddings"
    return None


def capture(
    module: Any, run: Callable[[], Any], heads: int | None = None, seen: dict | None = None
) -> list[np.ndarray]:
    """q, k, v of every head, each `(batch, heads, n, d_head)` float32, as `module` computed
    them while `run()` ran the model; under grouped-query attention k and v have fewer heads
    than q (`kv_head` says which one a q head reads). q and k are rotated as the layer rotates
    them (`rotate`); a layer whose change to q and k cannot be followed raises ValueError.
    `seen["cross"]` says whether the layer ran as cross-attention (`cross`): k and v then
    come from another sequence than q, even one as long."""
    import torch

    names = _projections(module)
    if names is None:
        raise ValueError(f"{type(module).__name__} has no q, k, v projections this can find")
    outputs: dict[str, Any] = {}
    seen = {} if seen is None else seen
    hooks = []
    if names == ("in_proj_weight",):  # nn.MultiheadAttention: project its inputs ourselves

        def keep_inputs(_: Any, args: tuple, kwargs: dict) -> None:
            given = [*args, *(kwargs.get(k) for k in ("query", "key", "value"))]
            qkv = [x for x in given if x is not None][:3]
            seen["cross"] = qkv[1] is not qkv[0]
            if not module.batch_first:
                qkv = [x.transpose(0, 1) for x in qkv]
            weights = module.in_proj_weight.chunk(3)
            biases = module.in_proj_bias.chunk(3) if module.in_proj_bias is not None else [None] * 3
            for key, x, w, b in zip("qkv", qkv, weights, biases, strict=True):
                outputs[key] = torch.nn.functional.linear(x, w, b)

        hooks.append(module.register_forward_pre_hook(keep_inputs, with_kwargs=True))
    else:

        def keep_rotation(_: Any, args: tuple, kwargs: dict) -> None:
            seen["cross"] = cross(kwargs)
            given = kwargs.get("position_embeddings")
            if given is None and len(args) > 1 and isinstance(args[1], tuple):
                given = args[1]  # Llama's forward(hidden_states, position_embeddings, ...)
            if given is not None:
                outputs["rotation"] = given

        hooks.append(module.register_forward_pre_hook(keep_rotation, with_kwargs=True))
        for name in names:

            def keep(_: Any, __: Any, out: Any, name: str = name) -> None:
                outputs[name] = out

            hooks.append(getattr(module, name).register_forward_hook(keep))
    try:
        with torch.no_grad():
            run()
    finally:
        for hook in hooks:
            hook.remove()
    if len(names) == 1 and names != ("in_proj_weight",):
        fused = outputs[names[0]]
        q, k, v = fused.split(_widths(module, fused.shape[-1], heads), dim=-1)
    elif names == ("in_proj_weight",):
        q, k, v = outputs["q"], outputs["k"], outputs["v"]
    else:
        q, k, v = (outputs[name] for name in names)
    count = head_count(module, heads)
    q, k, v = (x.detach().float().cpu().numpy() for x in (q, k, v))
    split = split_heads(q, k, v, count, _said(module, HEAD_DIM))
    if names == ("in_proj_weight",):
        return split
    return _as_multiplied(module, split, outputs.get("rotation"))


# what a Hugging Face layer is handed when it attends to another sequence: BART, T5, Whisper
# and Marian's `key_value_states`, BERT-style decoders' `encoder_hidden_states`
CROSS = ("key_value_states", "encoder_hidden_states")


def cross(kwargs: dict) -> bool:
    """Whether a layer's forward was handed another sequence to attend to."""
    return any(kwargs.get(name) is not None for name in CROSS)


def _as_multiplied(module: Any, split: list[np.ndarray], rotation: Any) -> list[np.ndarray]:
    """q, k, v as the layer multiplies them: q and k rotated by the `(cos, sin)` its forward
    was handed; refused when the layer changes q and k in a way the hooks do not see."""
    why = _unseen_change(module, rotation is not None)
    if why:
        raise ValueError(f"{type(module).__name__}: {why}; its q·k cannot be drawn exactly")
    if rotation is None:
        return split
    Q, K, V = split
    cos, sin = (np.asarray(x.detach().float().cpu().numpy(), np.float32) for x in rotation)
    cos, sin = (x[None] if x.ndim == 2 else x for x in (cos, sin))  # (n, r): a batch of one
    return [rotate(Q, cos, sin), rotate(K, cos, sin), V]


def kv_head(q_heads: int, kv_heads: int, head: int) -> int:
    """The k, v head q head `head` reads: under grouped-query attention each k, v head serves
    q_heads / kv_heads q heads in a row (Llama's repeat_kv)."""
    return head // (q_heads // kv_heads)


def is_lens(model: Any) -> bool:
    """Whether `model` is a TransformerLens model (HookedTransformer, or TransformerLens 4's
    TransformerBridge): it runs with a cache of named hooks."""
    return hasattr(model, "run_with_cache") and hasattr(model, "cfg")


def lens_qkv(model: Any, inputs: Any, layer: int) -> list[np.ndarray]:
    """q, k, v of one layer of a TransformerLens model, `(batch, heads, n, d_head)`, read from
    the hooks it documents, `blocks.{layer}.attn.hook_q` / `hook_k` / `hook_v`, each
    `(batch, pos, heads, d_head)` (k and v with fewer heads under grouped-query attention);
    on a rotary model (`cfg.positional_embedding_type == "rotary"`) q and k are read after
    the rotation, from `hook_rot_q` / `hook_rot_k`, as the model multiplies them."""
    import torch

    rotary = getattr(model.cfg, "positional_embedding_type", "") == "rotary"
    hooks = ("rot_q", "rot_k", "v") if rotary else ("q", "k", "v")
    names = [f"blocks.{layer}.attn.hook_{x}" for x in hooks]
    with torch.no_grad():
        _, cache = model.run_with_cache(inputs, names_filter=lambda name: name in names)
    found = []
    for name in names:
        try:
            x = cache[name]
        except KeyError as error:
            raise ValueError(
                f"the model's cache has no {name}: is layer {layer} one of its own?"
            ) from error
        x = np.asarray(x.detach().float().cpu() if hasattr(x, "detach") else x, dtype=np.float32)
        x = x[None] if x.ndim == 3 else x  # (pos, heads, d): a batch of one
        found.append(x.transpose(0, 2, 1, 3))
    return found
