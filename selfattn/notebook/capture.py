"""q, k and v of one head of a real torch model, read by hooks while the model runs.

An attention layer computes its queries, keys and values with projections it names in one of
a few ways: one fused Linear to all three (GPT-2's `c_attn`, `qkv`, `Wqkv`), three Linears
(`q_proj`/`k_proj`/`v_proj`, BERT's `query`/`key`/`value`, `to_q`...), or torch's own
`nn.MultiheadAttention` with its packed `in_proj_weight`. A forward hook on the projection
keeps what it returned; nothing in the model changes. q and k are as projected, before any
rotary embedding a layer applies afterwards. torch is imported only when a model is run.
"""

from __future__ import annotations

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
    if heads:
        return heads
    for owner in (module, getattr(module, "config", None)):
        for name in HEADS:
            value = getattr(owner, name, None)
            if isinstance(value, int) and value > 0:
                return value
    raise ValueError(f"{type(module).__name__} does not say how many heads it has: pass heads=")


def capture(module: Any, run: Callable[[], Any], heads: int | None = None) -> list[np.ndarray]:
    """q, k, v of every head, each `(batch, heads, n, d_head)` float32, as `module` computed
    them while `run()` ran the model."""
    import torch

    names = _projections(module)
    if names is None:
        raise ValueError(f"{type(module).__name__} has no q, k, v projections this can find")
    outputs: dict[str, Any] = {}
    hooks = []
    if names == ("in_proj_weight",):  # nn.MultiheadAttention: project its inputs ourselves

        def keep_inputs(_: Any, args: tuple, kwargs: dict) -> None:
            given = [*args, *(kwargs.get(k) for k in ("query", "key", "value"))]
            qkv = [x for x in given if x is not None][:3]
            if not module.batch_first:
                qkv = [x.transpose(0, 1) for x in qkv]
            weights = module.in_proj_weight.chunk(3)
            biases = module.in_proj_bias.chunk(3) if module.in_proj_bias is not None else [None] * 3
            for key, x, w, b in zip("qkv", qkv, weights, biases, strict=True):
                outputs[key] = torch.nn.functional.linear(x, w, b)

        hooks.append(module.register_forward_pre_hook(keep_inputs, with_kwargs=True))
    else:
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
        q, k, v = outputs[names[0]].chunk(3, dim=-1)
    elif names == ("in_proj_weight",):
        q, k, v = outputs["q"], outputs["k"], outputs["v"]
    else:
        q, k, v = (outputs[name] for name in names)
    count = head_count(module, heads)
    split = []
    for x in (q, k, v):
        x = x.detach().float().cpu()
        if x.ndim == 2:
            x = x[None]  # (n, d): a batch of one
        b, n, d = x.shape
        split.append(x.reshape(b, n, count, d // count).transpose(1, 2).numpy())
    return split
