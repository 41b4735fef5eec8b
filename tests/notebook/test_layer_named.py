"""One layer's heads carry no layer number: TransformerLens's `cache["pattern", 7]` is a
`(batch, heads, n, n)` tensor, shown as "weights[0, 0]" with the 7 lost. The reading says
the number is unknown and how to give it, and `layer=7` names it."""

from __future__ import annotations

import numpy as np
import pytest

from selfattn.notebook import show_map


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
    with pytest.raises(ValueError, match=r"layer=7 names one layer's weights; these hold layers"):
        show_map(np.stack([pattern()[0]] * 2), list("abcd"), layer=7)
