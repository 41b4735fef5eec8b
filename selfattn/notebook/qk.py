"""show's and show_layer's view: one head's queries, keys and values, the query/key plane (F03)
and the weighted sum of the values (F20)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import traitlets

from selfattn.notebook import picture, stills
from selfattn.notebook.data import as_array, attention_weights, floats, projection
from selfattn.notebook.indices import picked
from selfattn.notebook.inputs import token_strings
from selfattn.notebook.widget import Widget, labels


class HeadView(Widget):
    """One head's queries, keys and values: the query/key plane and the weighted sum."""

    weights = traitlets.Bytes().tag(sync=True)
    # cross-attention's keys, from another sequence than its queries (an encoder's tokens
    # under a decoder's queries); [] when the keys are the queries' tokens
    key_tokens = traitlets.List(traitlets.Unicode()).tag(sync=True)
    mask = traitlets.Unicode("").tag(sync=True)
    q2 = traitlets.List().tag(sync=True)
    k2 = traitlets.List().tag(sync=True)
    v2 = traitlets.List().tag(sync=True)
    d = traitlets.Int(2).tag(sync=True)
    dv = traitlets.Int(2).tag(sync=True)
    qk_kept = traitlets.Float(1.0).tag(sync=True)
    v_kept = traitlets.Float(1.0).tag(sync=True)

    def _still(self) -> str:
        """The query/key plane as it first draws: every query and key as a dot."""
        q2, k2 = np.array(self.q2, float), np.array(self.k2, float)
        kept = "exact" if self.d == 2 else f"the two principal directions, {self.qk_kept:.0%} kept"
        return picture.figure(
            stills.plane(q2.reshape(-1, 2), k2.reshape(-1, 2)),
            f"{self.title or 'one head'}: {self._counted()} on the query/key plane "
            f"({kept}; d = {self.d}). {picture.STILL}",
        )

    def _counted(self) -> str:
        n, m = len(self.tokens), len(self.key_tokens or self.tokens)
        if not self.key_tokens:
            return f"{n} queries (orange) and keys (blue)"
        return f"{n} queries (orange) over {m} keys (blue) of another sequence"


def _finite(**arrays: np.ndarray) -> None:
    """ValueError naming the first NaN or infinity and where: it has no place on the plane (it
    went into the saved page's JSON as a bare NaN, and the page drew nothing)."""
    for name, x in arrays.items():
        if not np.isfinite(x).all():
            at = tuple(int(i) for i in np.argwhere(~np.isfinite(x))[0])
            raise ValueError(f"{name} holds {x[at]} at {at}: q, k and v must be finite numbers")


def show(
    q: Any,
    k: Any,
    v: Any,
    *,
    tokens: Any,
    key_tokens: Any = None,
    mask: Any = None,
    title: str | None = None,
    scale: float | None = None,
    softcap: float | None = None,
) -> HeadView:
    """One head: the query/key plane (F03) and the weighted sum of the values (F20).

    `q` is `(n, d)`, `k` is `(m, d)` and `v` is `(m, d_v)`: m = n for self-attention; for
    cross-attention (a decoder's queries over an encoder's keys) `key_tokens` names the m
    keys, as `tokens` names the n queries. `mask` is `"causal"` (self-attention only) or an
    `(n, m)` boolean array, True where a query may see a key. Exact when d = 2; otherwise
    drawn on the two principal directions, labelled with the share of variance kept. q·k is
    multiplied by `scale` (1/√d by default) and, with `softcap`, capped to ±softcap by tanh,
    as Gemma 2 does.
    """
    Q, K, V = as_array(q), as_array(k), as_array(v)
    n, m = Q.shape[0], K.shape[0]
    if Q.ndim != 2 or K.ndim != 2 or K.shape[1] != Q.shape[1] or V.ndim != 2 or V.shape[0] != m:
        raise ValueError(
            f"q must be (n, d), k (m, d) alike in d and v (m, d_v): {Q.shape}, {K.shape}, {V.shape}"
        )
    _finite(q=Q, k=K, v=V)
    raw = token_strings(tokens) or []
    if len(raw) != n:
        raise ValueError(f"{len(raw)} tokens for {n} queries")
    keys = _key_names(key_tokens, n, m)
    allowed = _mask(mask, n, m, keys is not None)
    W = attention_weights(Q, K, allowed, scale, softcap)
    (q2, k2), qk_kept = projection(Q, K)
    (v2,), v_kept = projection(V)
    return HeadView(
        kind="qk",
        **labels(raw),
        key_tokens=labels(keys)["tokens"] if keys is not None else [],
        title=title or "",
        weights=floats(W),
        mask="" if allowed is None else "".join("1" if a else "0" for a in allowed.ravel()),
        q2=q2.tolist(),
        k2=k2.tolist(),
        v2=v2.tolist(),
        d=Q.shape[1],
        dv=V.shape[1],
        qk_kept=qk_kept,
        v_kept=v_kept,
    )


def _key_names(key_tokens: Any, n: int, m: int) -> list[str] | None:
    """The m keys' tokens when they are another sequence's (cross-attention), else None."""
    keys = token_strings(key_tokens) if key_tokens is not None else None
    if keys is None and m != n:
        raise ValueError(
            f"{m} keys for {n} queries: cross-attention needs key_tokens= (the keys' {m} tokens)"
        )
    if keys is not None and len(keys) != m:
        raise ValueError(f"{len(keys)} key_tokens for {m} keys")
    return keys


def _mask(mask: Any, n: int, m: int, cross: bool) -> np.ndarray | None:
    """The keys each query may see, `(n, m)`, from "causal" (self-attention only) or an
    array; None when every query sees every key."""
    if isinstance(mask, str):
        if mask != "causal":
            raise ValueError(f"mask must be 'causal' or a boolean (n, m) array, not {mask!r}")
        if cross:
            raise ValueError("mask='causal' is for self-attention: pass an (n, m) boolean mask")
        return np.tril(np.ones((n, n), dtype=bool))
    allowed = None if mask is None else np.asarray(as_array(mask), dtype=bool)
    if allowed is not None and allowed.shape != (n, m):
        raise ValueError(f"mask is {allowed.shape}: a row a query, a column a key: ({n}, {m})")
    return allowed


def _runner(model: Any, inputs: Any) -> Callable[[], Any]:
    """How to run the model on `inputs`: a tokenizer's output as `**inputs`, a function as
    it is, anything else as the model's one argument."""
    if hasattr(inputs, "keys"):  # a tokenizer's output, as model(**inputs) takes it
        return lambda: model(**{str(key): inputs[key] for key in inputs.keys()})  # noqa: SIM118
    if callable(inputs) and not hasattr(inputs, "shape"):
        return inputs
    return lambda: model(inputs)


def _tokens(
    model: Any, inputs: Any, tokens: Any, batch: int, ids: str = "input_ids"
) -> list[str] | None:
    """The layer's tokens: strings, a tokenizer reading the ids in `inputs` (its `ids`, the
    decoder's `decoder_input_ids` for a decoder's queries), or, for a TransformerLens model
    given text, the model's own tokens of it."""
    from selfattn.notebook.capture import is_lens
    from selfattn.notebook.inputs import TOKENIZER

    if tokens is None and is_lens(model) and hasattr(model, "to_str_tokens"):
        tokens = model
    to_str = getattr(tokens, "to_str_tokens", None)
    if isinstance(inputs, str) and to_str is not None:
        return [str(t) for t in to_str(inputs)]
    given = inputs if any(hasattr(tokens, name) for name in TOKENIZER) else None
    held: Any = inputs  # a tokenizer's output, or ids alone
    if given is not None and hasattr(held, "keys") and ids in held:
        given = held[ids]
    return token_strings(tokens, given, batch)


def show_layer(
    model: Any,
    inputs: Any,
    tokens: Any = None,
    *,
    key_tokens: Any = None,
    layer: int = 0,
    head: int = 0,
    batch: int = 0,
    heads: int | None = None,
    mask: Any = None,
    module: Any = None,
    title: str | None = None,
) -> HeadView:
    """`show` on one head of a real torch model: its q, k and v read by hooks while the model
    runs on `inputs` (token ids, a tokenizer's output given as `**inputs`, or a function that
    runs the model), so the query/key plane needs no hand-written glue.

    `layer` counts the model's attention modules in order (or pass the module itself as
    `module`); `heads` is needed only when the module does not say how many it has. `tokens`
    are strings or a tokenizer (the ids come from `inputs`). `mask` is as for `show`; by
    default "causal" when the module says it is (`is_causal`). q and k are as the layer
    multiplies them: rotated on a rotary layer (Hugging Face's `position_embeddings`), and a
    layer whose change to q and k cannot be followed is refused with one line. Under
    grouped-query attention (a Llama with 8 q heads and 2 k, v heads) q head `head` is drawn
    with the k, v head it reads. A TransformerLens model (HookedTransformer, or
    TransformerLens 4's TransformerBridge) is read from its own hooks,
    `blocks.{layer}.attn.hook_q`/`hook_k`/`hook_v` (`hook_rot_q`/`hook_rot_k` when rotary), on
    ids or text, its tokens by default.

    A cross-attention layer (an encoder–decoder's, as BART's `encoder_attn`) draws the
    decoder's queries over the encoder's keys and values: with a tokenizer as `tokens` the
    queries are read from `inputs["decoder_input_ids"]` and the keys from `input_ids`; with
    strings, `tokens` are the decoder's and `key_tokens` the encoder's. The title names the
    layer as the model's path numbers it ("decoder layer 1", as `cross_attentions[1]` is
    for show_map) and, where that differs, as `layer=` counts ("show_layer's layer=5").
    """
    from selfattn.notebook.capture import kv_head

    seen: dict[str, bool] = {}  # whether the layer ran as cross-attention (capture)
    Q, K, V, causal, module, layer = _layer_qkv(model, inputs, layer, module, heads, seen)
    head = picked(head, list(range(Q.shape[1])), "head", "the layer has q")
    shared = kv_head(Q.shape[1], K.shape[1], head)
    q, k, v = Q[batch, head], K[batch, shared], V[batch, shared]
    crossed = bool(seen.get("cross")) or len(k) != len(q)
    decoder = crossed or bool(getattr(module, "is_decoder", False))
    raw = _tokens(model, inputs, tokens, batch, "decoder_input_ids" if decoder else "input_ids")
    keys = _encoder_tokens(model, inputs, tokens, key_tokens, batch, len(k)) if crossed else None
    padding = "attention_mask" if crossed or not decoder else "decoder_attention_mask"
    allowed = _allowed(
        module, inputs, batch, (len(q), len(k)), "causal" if causal else None, padding
    )
    where = f"{_layer_name(model, module, layer)} · head {head}"
    where += f" (k, v head {shared})" if shared != head else ""
    where += ", cross-attention: decoder queries over encoder keys" if crossed else ""
    return show(
        q,
        k,
        v,
        tokens=raw or [str(i) for i in range(len(q))],
        key_tokens=keys,
        mask=allowed if mask is None else mask,
        title=f"{title}, {where}" if title else where,
        **_scoring(module),
    )


def _layer_qkv(
    model: Any, inputs: Any, layer: int, module: Any, heads: int | None, seen: dict
) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool, Any, int]:
    """q, k, v of every head of the layer asked for, whether it is causal, its module and
    its number among the model's attention layers."""
    from selfattn.notebook.capture import attention_layers, capture, is_lens, lens_qkv

    if module is None and is_lens(model):
        count = getattr(getattr(model, "cfg", None), "n_layers", None)
        if isinstance(count, int):  # -1 the last, as in every view
            layer = picked(layer, list(range(count)), "layer", "the model has")
        Q, K, V = lens_qkv(model, inputs, layer)
        return Q, K, V, getattr(model.cfg, "attention_dir", "causal") == "causal", None, layer
    if module is None:
        layers = attention_layers(model)
        if not layers:
            raise ValueError("no attention module with q, k, v projections was found: pass module=")
        layer = picked(layer, list(range(len(layers))), "layer", "the model has attention")
        module = layers[layer]
    Q, K, V = capture(module, _runner(model, inputs), heads, seen)
    causal = bool(getattr(module, "is_causal", False))
    return Q, K, V, causal, module, _index(model, module, layer)


def _encoder_tokens(
    model: Any, inputs: Any, tokens: Any, key_tokens: Any, batch: int, m: int
) -> list[str]:
    """Cross-attention's keys: `key_tokens`, or the tokenizer given reading `input_ids`,
    else the keys' numbers."""
    named = key_tokens if key_tokens is not None else tokens if _reads_ids(tokens) else None
    return _tokens(model, inputs, named, batch) or [str(j) for j in range(m)]


def _reads_ids(tokens: Any) -> bool:
    from selfattn.notebook.inputs import TOKENIZER

    return any(hasattr(tokens, name) for name in TOKENIZER)


def _layer_name(model: Any, module: Any, layer: int) -> str:
    """The layer as the model's own path numbers it ("decoder layer 1", as
    `output_attentions`' tuples count a decoder's layers, so show_map and this title agree)
    and, where that differs, as `layer=` counts every attention module ("layer 5")."""
    named = getattr(model, "named_modules", None)
    path = next((n for n, m in named() if m is module), "") if module is not None and named else ""
    found = re.search(r"\b(encoder|decoder)\.(?:layers|layer|block)\.(\d+)\b", path)
    if not found:
        return f"layer {layer}"
    own = f"{found[1]} layer {found[2]}"
    return own if int(found[2]) == layer else f"{own} (show_layer's layer={layer})"


def _index(model: Any, module: Any, layer: int) -> int:
    """The module's place among the model's attention layers, as `layer=` counts them
    (`module=` given, it is found there), else `layer` as it was."""
    from selfattn.notebook.capture import attention_layers

    found = [i for i, m in enumerate(attention_layers(model)) if m is module]
    return found[0] if found else layer


def _number(owner: Any, name: str) -> float | None:
    """A positive number `owner` holds as `name`, else None (a Mock or a tensor is none)."""
    value = getattr(owner, name, None)
    return float(value) if isinstance(value, (int, float)) and value > 0 else None


def _scoring(module: Any) -> dict[str, float | None]:
    """How the layer scores q·k where it says so: its own `scaling` (Gemma 2 scales by
    query_pre_attn_scalar, not by √d) and `attn_logit_softcapping`."""
    return {
        "scale": _number(module, "scaling"),
        "softcap": _number(module, "attn_logit_softcapping"),
    }


def _allowed(
    module: Any,
    inputs: Any,
    batch: int,
    shape: tuple[int, int],
    mask: str | None,
    name: str = "attention_mask",
) -> Any:
    """The keys each query may see, as the model masks them: causal when the layer is, within
    its `sliding_window` when it has one, and never a padding key of `inputs`' `name` mask
    (`attention_mask`, the encoder's, for its own layers and cross-attention's keys;
    `decoder_attention_mask` for a decoder's own; a padded batch: the model gives a padding
    key no weight). `mask` as it was when nothing more is masked."""
    window = _number(module, "sliding_window")
    padding = inputs[name] if hasattr(inputs, "keys") and name in inputs else None
    if window is None and padding is None:
        return mask
    n, m = shape
    allowed = np.tril(np.ones((n, m), bool)) if mask == "causal" else np.ones((n, m), bool)
    if window is not None:  # transformers' sliding_window_overlay: key > query − window
        rows, cols = np.indices((n, m))
        allowed &= cols > rows - window
    if padding is not None:
        kept = np.asarray(padding.detach().cpu() if hasattr(padding, "detach") else padding)
        if kept.ndim == 2:
            kept = kept[batch]
        if kept.shape != (m,):
            raise ValueError(
                f"{name} is {tuple(np.shape(padding))}: only a (batch, n) mask of 1 "
                "(a token) and 0 (padding) is followed; pass mask= (n, m) yourself"
            )
        allowed &= kept.astype(bool)[None, :]
    return allowed
