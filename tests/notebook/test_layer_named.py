"""One layer's heads carry no layer number: TransformerLens's `cache["pattern", 7]` is a
`(batch, heads, n, n)` tensor, shown as "weights[0, 0]" with the 7 lost. The reading says
the number is unknown and how to give it, and `layer=7` names it."""

from __future__ import annotations

import numpy as np
import pytest

from selfattn.notebook import show_compare, show_heads, show_map


def pattern(heads: int = 3, n: int = 4) -> np.ndarray:
    """cache["pattern", 7] as TransformerLens gives it: (batch 1, heads, n, n), causal."""
    w = np.tril(np.ones((n, n)))
    return np.broadcast_to(w / w.sum(axis=1, keepdims=True), (1, heads, n, n)).copy()


def test_one_layers_heads_claim_no_layer_until_named() -> None:
    unnamed = show_map(pattern(), list("abcd"))
    assert "one layer, its number unknown: pass layer=" in unnamed.reading
    assert "pass layer=" in repr(unnamed) and "layer 0" not in repr(unnamed)
    named = show_map(pattern(), list("abcd"), layer=7)
    assert named.layer_ids == [7] and named.layer == 7
    assert "showing layer 7, head 0" in repr(named) and "pass layer=" not in named.reading
    assert "layer 7, head 0" in named._still()
    # on weights that number their layers, layer= opens one (as for show_lines): 7 is not there
    with pytest.raises(ValueError, match=r"layer=7: the weights hold layers 0\.\.1"):
        show_map(np.stack([pattern()[0]] * 2), list("abcd"), layer=7)


def test_the_heads_and_compare_views_take_the_layer_number_too() -> None:
    """`show_heads` and `show_compare` read the same one-layer caches: `layer=7` names them
    there as in `show_map` (they claimed layer 0, and refused the keyword)."""
    heads = show_heads(pattern(), list("abcd"), layer=7)
    assert heads.layer_ids == [7] and heads.layer == 7
    assert show_heads(pattern(), list("abcd")).layer_ids != [7]
    compare = show_compare(pattern(), pattern(), list("abcd"), layer=7)
    assert compare.layer_ids == [7] and compare.layer == 7
