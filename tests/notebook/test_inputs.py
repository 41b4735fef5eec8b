"""show_map takes attention as models return it: a tuple of layers, a cache, a batch."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import traitlets

from selfattn.notebook import show_map
from selfattn.notebook.inputs import attention_stack, token_strings


def layers(count: int = 3, batch: int = 2, heads: int = 4, n: int = 5) -> list[np.ndarray]:
    """Causal softmax weights, one (batch, heads, n, n) array per layer, each cell distinct."""
    rng = np.random.default_rng(0)
    scores = rng.normal(size=(count, batch, heads, n, n))
    scores = np.where(np.tril(np.ones((n, n), dtype=bool)), scores, -np.inf)
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return list(w / w.sum(axis=-1, keepdims=True))


def test_a_tuple_of_layers_is_stacked_and_one_sequence_picked() -> None:
    attentions = tuple(layers())
    stack, dtype = attention_stack(attentions, batch=1)
    assert stack.shape == (3, 4, 5, 5) and dtype == "float64"
    assert np.array_equal(stack[2, 3], attentions[2][1, 3])
    with pytest.raises(ValueError, match=r"batch=0\.\.1"):
        attention_stack(attentions)
    one, _ = attention_stack(tuple(a[:1] for a in attentions))  # a batch of one needs no index
    assert np.array_equal(one, np.stack([a[0] for a in attentions]))
    five, _ = attention_stack(np.stack(attentions), batch=-1)  # torch.stack(outputs.attentions)
    assert np.array_equal(five, stack)


def test_a_model_output_and_a_transformerlens_cache_are_read_as_they_come() -> None:
    attentions = tuple(layers())

    class Output(dict):  # a ModelOutput is a dict with attributes
        pass

    output = Output(logits=np.zeros(3))
    output.attentions = attentions  # type: ignore[attr-defined]
    cache = {f"blocks.{k}.attn.hook_pattern": a for k, a in reversed(list(enumerate(attentions)))}
    cache["blocks.0.hook_resid_pre"] = np.zeros((2, 5, 8))
    for source in (output, cache):
        stack, _ = attention_stack(source, batch=0)
        assert np.array_equal(stack, np.stack([a[0] for a in attentions]))
    with pytest.raises(ValueError, match="hook_pattern"):
        attention_stack({"blocks.0.hook_resid_pre": np.zeros(3)})


def test_torch_layers_in_half_precision_keep_their_dtype_for_the_checks() -> None:
    torch = pytest.importorskip("torch")
    attentions = tuple(torch.tensor(a).to(torch.bfloat16) for a in layers())
    m = show_map(attentions, ["Ġthe", "Ġcat", "Ġate", "Ġand", "Ġit"], batch=1)
    assert m.shape == [3, 4, 5, 5] and m.causal and m.failed == []
    assert m.tokens == ["the", "cat", "ate", "and", "it"] and m.raw[0] == "Ġthe"


class Tokenizer:
    def convert_ids_to_tokens(self, ids: list[int]) -> list[str]:
        return ["<|endoftext|>", "Ġthe", "Ġcat", "Ċ", "Ġit"][: len(ids)]


def test_tokens_may_be_a_tokenizer_and_its_ids_in_a_batch() -> None:
    ids = {"input_ids": np.array([[0, 1, 2, 3, 4], [4, 3, 2, 1, 0]])}
    assert token_strings(Tokenizer(), ids, batch=0) == Tokenizer().convert_ids_to_tokens([0] * 5)
    m = show_map(tuple(layers()), (Tokenizer(), ids["input_ids"]), batch=0)
    assert m.tokens == ["<|endoftext|>", "the", "cat", "↵", "it"]
    plain = show_map(layers()[0][0], list("abcde"))
    assert plain.raw == [] and plain.tokens == list("abcde")
    assert show_map(layers()[0][0]).tokens == ["0", "1", "2", "3", "4"]
    with pytest.raises(ValueError, match="needs the ids"):
        show_map(layers()[0][0], Tokenizer())


def test_a_four_d_array_is_never_read_silently() -> None:
    batch_of_two = np.stack(layers()[0][:2])  # (2, 4, 5, 5): one Hugging Face layer, 2 sequences
    m = show_map(batch_of_two)  # no batch= and no axes=: read as (layers, heads), and said so
    assert m.shape == [2, 4, 5, 5] and m.reading.startswith("read as (layers, heads,")
    assert "pass axes=" in m.reading and "pass axes=" in repr(m)
    picked = show_map(batch_of_two, batch=1)  # a batch asked for: (batch, heads, n, n)
    assert picked.shape == [4, 5, 5] and picked.reading.startswith("read as (batch, heads,")
    assert np.allclose(np.frombuffer(picked.weights, "<f4"), layers()[0][1, 0].ravel())
    assert "sequence 1" in repr(picked) and "axes=" not in picked.reading
    one = show_map(layers()[0][:1])  # (1, 4, 5, 5): a layer of one sequence, no layer axis
    assert one.shape == [4, 5, 5] and one.reading.startswith("read as (batch, heads,")
    named = show_map(np.transpose(batch_of_two, (1, 0, 2, 3)), axes="hbqk", batch=0)
    assert named.shape == [4, 5, 5] and np.array_equal(named._stack, batch_of_two[0])
    assert named.failed == [] and named._name(0, 3) == "weights[3, 0]"
    with pytest.raises(ValueError, match="names each axis once"):
        show_map(batch_of_two, axes="bhqq")
    with pytest.raises(ValueError, match="names 3 axes"):
        show_map(batch_of_two, axes="hqk")


def test_a_transformerlens_cache_keeps_its_layer_numbers() -> None:
    attentions = layers(count=3, batch=1)
    cache = {f"blocks.{7 + k}.attn.hook_pattern": a for k, a in enumerate(attentions)}
    cache[f"blocks.{7}.attn.hook_pattern"] = attentions[0].copy()
    cache["blocks.8.attn.hook_pattern"][0, 2, 0, 1] = 0.5  # layer 8, head 2 leaks
    m = show_map(cache, causal=True)
    assert m.layer_ids == [7, 8, 9] and (m.layer, m.head) == (8, 2)
    assert m.failed[0].startswith("layer 8, head 2: ")
    m.layer = 9
    assert np.allclose(np.frombuffer(m.weights, "<f4"), attentions[2][0, 2].ravel())
    with pytest.raises(traitlets.TraitError, match=r"layer=0: the weights hold layers 7\.\.9"):
        m.layer = 0  # not a layer of this cache: said, never the nearest picked silently
    assert m.layer == 9
    kept = m.save_html("/dev/null", layers=[9])
    assert kept == Path("/dev/null")
    with pytest.raises(ValueError, match=r"layer=0: the weights hold layers 7\.\.9"):
        m.save_html("/dev/null", layers=[0])


def test_a_string_of_tokens_is_split_by_whitespace_with_a_warning() -> None:
    with pytest.warns(UserWarning, match="split by whitespace into 5 tokens"):
        m = show_map(layers()[0][0], "the cat ate and it")
    assert m.tokens == ["the", "cat", "ate", "and", "it"]
    too_few = pytest.raises(ValueError, match="4 tokens for a map of 5 queries")
    with too_few, pytest.warns(UserWarning):
        show_map(layers()[0][0], "the cat ate it")
