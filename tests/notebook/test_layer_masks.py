"""show_layer draws what the model computes, not a textbook softmax beside it: a padded
batch's padding keys get no weight (the tokenizer's attention_mask), a layer's own scaling,
logit cap and sliding window are followed (Gemma 2), and a layer the model lacks is one
line, never an IndexError."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from selfattn.notebook import show_layer

torch = pytest.importorskip("torch")


def drawn(widget: Any) -> np.ndarray:
    n = len(widget.tokens)
    return np.frombuffer(widget.weights, dtype="<f4").reshape(n, n)


def small(name: str, **more: Any) -> Any:
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(0)
    config = getattr(transformers, f"{name}Config")(
        hidden_size=128,
        intermediate_size=256,
        num_hidden_layers=2,
        num_attention_heads=8,
        vocab_size=1000,
        attn_implementation="eager",
        **more,
    )
    if name == "Bert":
        return transformers.BertModel(config).eval()
    return getattr(transformers, f"{name}ForCausalLM")(config).eval()


def test_a_left_padded_llama_batch_gives_its_padding_no_weight() -> None:
    model = small("Llama", num_key_value_heads=2)
    inputs = {
        "input_ids": torch.randint(0, 1000, (2, 9)),
        "attention_mask": torch.tensor([[1] * 9, [0, 0, 0] + [1] * 6]),
    }
    with torch.no_grad():
        own = model(**inputs, output_attentions=True).attentions[1][1, 2].numpy()
    w = drawn(show_layer(model, inputs, list("abcdefghi"), layer=1, head=2, batch=1))
    assert np.allclose(w[3:], own[3:], atol=1e-5)  # the rows of real tokens, as the model's
    assert not w[:, :3].any()  # no query weighs a padding key


def test_a_right_padded_bert_gives_its_padding_no_weight() -> None:
    model = small("Bert")
    inputs = {
        "input_ids": torch.randint(1000, 5000, (1, 9)) % 1000,
        "attention_mask": torch.tensor([[1] * 7 + [0] * 2]),
    }
    with torch.no_grad():
        own = model(**inputs, output_attentions=True).attentions[1][0, 2].numpy()
    w = drawn(show_layer(model, inputs, list("abcdefghi"), layer=1, head=2))
    assert np.allclose(w, own, atol=1e-5)


def test_a_mask_that_is_not_batch_by_tokens_is_refused_in_one_line() -> None:
    model = small("Bert")
    inputs = {"input_ids": torch.randint(0, 1000, (1, 5)), "attention_mask": torch.ones(1, 1, 5, 5)}
    with pytest.raises(ValueError, match=r"only a \(batch, n\) mask"):
        show_layer(model, inputs, list("abcde"))


def test_gemma2_is_drawn_with_its_own_scaling_and_cap() -> None:
    model = small("Gemma2", num_key_value_heads=2, head_dim=16, sliding_window=4)
    inputs = {"input_ids": torch.randint(0, 1000, (1, 9))}
    with torch.no_grad():
        own = model(**inputs, output_attentions=True).attentions
    for layer in (0, 1):  # layer 0 slides over 4 keys, layer 1 sees them all
        w = drawn(show_layer(model, inputs, list("abcdefghi"), layer=layer, head=3))
        assert np.allclose(w, own[layer][0, 3].numpy(), atol=1e-5)


def test_a_layer_the_model_lacks_is_one_line() -> None:
    model = small("Llama", num_key_value_heads=2)
    with pytest.raises(ValueError, match=r"layer=2: the model has attention layers 0\.\.1"):
        show_layer(model, {"input_ids": torch.randint(0, 1000, (1, 5))}, list("abcde"), layer=2)
