"""A layer's padding mask: a layer whose forward takes a mask argument (`attention_mask`,
`key_padding_mask`, `mask`) is handed one that pads the last keys, in each form and shape a
layer takes, and must then be attention over the other keys. A mask applied to the query rows
instead (`mask.unsqueeze(-1)` where `unsqueeze(1)` was meant) leaves every kept query
attending to the padded keys: found by which rows the mask moved, and a padding-mask-leak."""

from __future__ import annotations

import itertools

import numpy as np

from .frameworks import CallFailed
from .layer import MASK_FORMS, SIZES, CausalMask, LayerRun
from .layer_bugs import agrees
from .projections import Suspect
from .reference import CAUSAL, CORRECT, KEEP, masked
from .repro import KEY_SHAPES

Array = np.ndarray
CHECK = "padded keys get no weight"


def padding(run: LayerRun) -> None:
    """The padding probe, through the first mask argument and form that gives attention over
    the unpadded keys; a form that moves only whole rows, padded or kept, is the bug."""
    layer, rep, x, tol = run.layer, run.rep, run.facts["x"], run.facts["tol"]
    if not run.masks:
        return
    causal = run.facts["causal"]
    want = Suspect(masked(CAUSAL if causal else CORRECT, "causal-padded" if causal else "padded"))
    padded = ~KEEP["padded"](x.shape[1])
    rows: list[tuple[bool, CausalMask]] = []  # (moved the kept rows, the mask)
    for param, shape, form in itertools.product(run.masks, KEY_SHAPES, MASK_FORMS):
        layer.mask = mask = CausalMask(param, form, keys=shape)
        try:
            out = layer(x)
        except CallFailed:
            continue
        if agrees(layer, x[0], out[0], want):
            rep.check(f"{CHECK} (`{param}`)", "pass", f"{mask.shape}, {mask.said}")
            layer.mask = None
            return
        moved = ~(np.abs(out[0] - run.facts["first"][0]).max(axis=-1) <= tol)
        if moved.any() and (np.array_equal(moved, padded) or np.array_equal(moved, ~padded)):
            rows.append((bool(moved[0]), mask))  # rows masked, not key columns (every row)
    # the padded rows moved: the form read in the sense the layer meant it
    layer.mask = min(rows, key=lambda r: r[0])[1] if rows else None
    if layer.mask is not None:
        _on_queries(run, layer.mask, int(padded.sum()))
    else:
        said = ", ".join(f"`{m}`" for m in run.masks)
        rep.notes.append(f"no key-padding mask handed to {said} was taken: padding not checked")
    layer.mask = None


def _on_queries(run: LayerRun, mask: CausalMask, pads: int) -> None:
    layer, rep = run.layer, run.rep
    n, seed = SIZES[0]  # run.facts["x"]'s
    detail = (
        f": `{mask.param}` ({mask.shape}, {mask.said}) with the last {pads} of {n} positions "
        "padded hides query rows, not keys: the other queries still attend to the padded keys"
    )
    rep.check(f"{CHECK} (`{mask.param}`)", "fail", detail.removeprefix(": "))
    rep.titled("padding-mask-leak", detail, layer.text.leak(n, seed, n - max(1, n // 3) - 1))
