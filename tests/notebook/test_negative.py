"""-1 is the last layer or head, as Python counts, in every view and in save_html's layers=
and heads=: one helper (indices.picked) reads them all. save_html(heads=-1) was refused
("heads to keep must be among 0..2"), show_map(heads=[-1]) too, and show_layer(head=-1)
said "the layer has q heads 0..3" while show_map(head=-1) opened the last."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from selfattn.notebook import show_compare, show_heads, show_lines, show_map, show_tokens
from selfattn.notebook.indices import picked

TOKENS = list("abcd")


def stack(layers: int = 2, heads: int = 3, n: int = 4) -> np.ndarray:
    rng = np.random.default_rng(0)
    w = np.tril(rng.random((layers, heads, n, n))) + 1e-3 * np.eye(n)
    return w / w.sum(-1, keepdims=True)


def test_the_helper_reads_negative_indices_as_python_does() -> None:
    assert picked(-1, [7, 8, 9], "layer") == 9 and picked(-3, [7, 8, 9], "layer") == 7
    assert picked(8, [7, 8, 9], "layer") == 8
    with pytest.raises(ValueError, match=r"layer=-4: the weights hold layers 7..9 \(or -3..-1"):
        picked(-4, [7, 8, 9], "layer")
    with pytest.raises(ValueError, match="whole numbers"):
        picked(1.5, [0, 1], "head")


@pytest.mark.parametrize("view", [show_map, show_lines, show_tokens])
def test_every_stepping_view_opens_on_the_last_head_at_minus_one(view) -> None:
    m = view(stack(), TOKENS, layer=-1, head=-1)
    assert (m.layer, m.head) == (1, 2)
    m.layer, m.head = -2, -3
    assert (m.layer, m.head) == (0, 0)


def test_heads_and_compare_step_to_the_last_at_minus_one() -> None:
    for m in (show_heads(stack(), TOKENS), show_compare(stack(), stack(), TOKENS)):
        m.layer, m.head = -1, -1
        assert (m.layer, m.head) == (1, 2)


def test_side_by_side_heads_take_minus_one() -> None:
    m = show_map(stack(), TOKENS, heads=[(-1, -1), (0, -2)])
    assert m.picked == [[1, 2], [0, 1]]
    assert show_map(stack()[0], TOKENS, heads=[-1]).picked == [[0, 2]]
    with pytest.raises(ValueError, match=r"layer=5: the weights hold layers 0..1"):
        show_map(stack(), TOKENS, heads=[(5, 0)])


@pytest.mark.parametrize(
    "make", [lambda: show_map(stack(), TOKENS), lambda: show_compare(stack(), stack(), TOKENS)]
)
def test_save_html_keeps_the_last_layer_and_head_at_minus_one(tmp_path: Path, make) -> None:
    m = make()
    path = m.save_html(tmp_path / "last.html", layers=-1, heads=[0, -1])
    text = path.read_text()
    assert '"layer": [1]' in text.replace('"layer":[1]', '"layer": [1]')
    assert re.search(r'"head": ?\[0, ?2\]', text)
    with pytest.raises(ValueError, match=r"head=-4: the weights hold heads 0..2 \(or -3..-1"):
        m.save_html(tmp_path / "x.html", heads=-4)


def test_show_layer_takes_minus_one_as_the_last_layer_and_head() -> None:
    torch = pytest.importorskip("torch")
    from selfattn.notebook import show_layer
    from tests.notebook.test_layer_masks import small

    model = small("Llama", num_key_value_heads=2)  # two layers of 8 q heads
    inputs = {"input_ids": torch.randint(0, 1000, (1, 5))}
    last = show_layer(model, inputs, list("abcde"), layer=-1, head=-1)
    assert "layer 1 · head 7" in last.title
    with pytest.raises(ValueError, match=r"layer=-3: the model has attention layers 0..1"):
        show_layer(model, inputs, list("abcde"), layer=-3)
    with pytest.raises(ValueError, match=r"head=8: the layer has q heads 0..7 \(or -8..-1"):
        show_layer(model, inputs, list("abcde"), head=8)
