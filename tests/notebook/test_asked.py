"""What the reader asks for is what is shown and said: layer= and head= open the lines and
tokens views there (one layer's heads numbered by layer=, as show_map numbers them), the
printed line says what is on screen, part= reaches every view of a stack, the repr gives
the shape as passed and names overlaid heads, and a head or row outside the map is one line
(-1 the last, as Python counts), never a neighbour picked silently."""

from __future__ import annotations

import numpy as np
import pytest
import traitlets

from selfattn.notebook import show_heads, show_lines, show_map, show_tokens

TOKENS = list("abcdef")


def causal(layers: int = 2, heads: int = 3, n: int = 6) -> np.ndarray:
    w = np.tril(np.ones((n, n)))
    return np.broadcast_to(w / w.sum(axis=1, keepdims=True), (layers, heads, n, n)).copy()


def test_the_printed_line_says_what_is_on_screen(capsys) -> None:
    w = causal()
    w[1, 2, 1, 3] = 0.3  # a future weight in layer 1, head 2
    m = show_lines(w, TOKENS, causal=True, layer=0, head=0)
    said = capsys.readouterr().out
    assert (m.layer, m.head) == (0, 0)
    assert "weights[1, 2] (rows sum to 1, causal)" in said
    assert "On screen: weights[0, 0], which keeps every invariant" in said
    assert "opened on weights[1, 2]" not in said
    show_tokens(w, TOKENS, causal=True, layer=1, head=2)
    assert "On screen: weights[1, 2];" in capsys.readouterr().out
    show_lines(w, TOKENS, causal=True)  # nothing asked: it opens on the failing head
    assert "The map opened on weights[1, 2]" in capsys.readouterr().out


def test_layer_numbers_one_layers_heads_in_lines_and_tokens() -> None:
    one = causal(1)[0]  # (heads, n, n): cache["pattern", 7] without its batch
    for view in (show_lines, show_tokens):
        m = view(one, TOKENS, layer=7, head=2)
        assert m.layer_ids == [7] and (m.layer, m.head) == (7, 2)
        assert "pass layer=" not in repr(m) and "showing layer 7, head 2" in repr(m)
    m = show_lines(causal(), TOKENS, layer=-1, head=-1)  # picks among layers it holds
    assert (m.layer, m.head) == (1, 2)


def test_a_head_or_row_outside_the_map_is_one_line() -> None:
    with pytest.raises(
        ValueError, match=r"head=5: the weights hold heads 0..2 \(or -3..-1 from the last\)"
    ):
        show_lines(causal(), TOKENS, layer=0, head=5)
    with pytest.raises(ValueError, match=r"layer=4: the weights hold layers 0..1"):
        show_tokens(causal(), TOKENS, layer=4, head=0)
    with pytest.raises(ValueError, match=r"row=9: the map has query rows 0..5"):
        show_tokens(causal(), TOKENS, row=9)
    assert show_tokens(causal(), TOKENS, row=-1).row == 5
    m = show_map(causal(), TOKENS)  # set from Python: the same, never the nearest one
    for name, value in (("head", 3), ("layer", 2), ("row", 6)):
        with pytest.raises(
            traitlets.TraitError,
            match=f"{name}={value}: the weights hold|{name}={value}: the map has",
        ):
            setattr(m, name, value)
    m.layer, m.head, m.row = -1, -1, -1
    assert (m.layer, m.head, m.row) == (1, 2, 5)


def test_part_reaches_heads_lines_and_tokens() -> None:
    full = causal(1, 2)[0]  # rows sum to 1 over all six keys
    block = full[:, 3:, :3]  # the second half's queries over the first half's keys
    for view in (show_heads, show_lines, show_tokens):
        assert view(block, TOKENS[3:], key_tokens=TOKENS[:3]).failed  # as whole rows: fail
        m = view(block, TOKENS[3:], key_tokens=TOKENS[:3], part=True)
        assert m.failed == [] and m.checks[-1]["invariant"] == "rows sum to at most 1"


def test_the_repr_gives_the_shape_as_passed() -> None:
    layers = tuple(causal(1, 3)[0][None] for _ in range(2))  # 2 × (batch 1, 3 heads, 6, 6)
    m = show_map(layers, TOKENS)
    assert "shape (2, 1, 3, 6, 6) read as (layers, batch, heads, queries, keys)" in repr(m)
    five = np.stack([causal(2, 3)] * 2, axis=1)  # (layers, batch, heads, n, n)
    assert "shape (2, 2, 3, 6, 6) read as (layers, batch," in repr(show_map(five, TOKENS, batch=1))


def test_overlaid_heads_are_named_in_the_repr() -> None:
    m = show_lines(causal(), TOKENS, heads=[(0, 1), (1, 2)])
    assert repr(m).endswith("showing weights[0, 1], weights[1, 2]>")
    assert show_map(causal(), TOKENS, heads=[(1, 0)]).picked == [[1, 0]]
