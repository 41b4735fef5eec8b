"""show_layer on cross-attention: a decoder's queries over an encoder's keys and values, a
rectangular map labelled with both token lists, and a title naming the layer and the head.
BART is built from a config (no download); torch's own decoder layer needs no transformers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from playwright.sync_api import Browser

from selfattn.notebook import show, show_layer
from tests.notebook.test_standalone import open_file

torch = pytest.importorskip("torch")


def drawn(widget: Any) -> np.ndarray:
    n, m = len(widget.tokens), len(widget.key_tokens or widget.tokens)
    return np.frombuffer(widget.weights, dtype="<f4").reshape(n, m)


class Words:
    """A tokenizer as show_layer reads one: ids to words."""

    def convert_ids_to_tokens(self, ids: Any) -> list[str]:
        return [f"w{int(i)}" for i in ids]


@pytest.mark.parametrize("decoded", [7, 9])  # fewer queries than keys, and as many
def test_bart_cross_attention_draws_decoder_queries_over_encoder_keys(decoded: int) -> None:
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(0)
    config = transformers.BartConfig(
        vocab_size=50,
        d_model=32,
        encoder_layers=1,
        decoder_layers=1,
        encoder_attention_heads=4,
        decoder_attention_heads=4,
        encoder_ffn_dim=64,
        decoder_ffn_dim=64,
        max_position_embeddings=64,
        attn_implementation="eager",
    )
    model = transformers.BartModel(config).eval()
    inputs = {
        "input_ids": torch.arange(3, 12)[None],
        "decoder_input_ids": torch.arange(20, 20 + decoded)[None],
    }
    with torch.no_grad():
        own = model(**inputs, output_attentions=True).cross_attentions[0][0, 1].numpy()
    # layers in order: the encoder's self-attention, the decoder's, the decoder's cross
    widget = show_layer(model, inputs, Words(), layer=2, head=1)
    assert widget.tokens == [f"w{i}" for i in range(20, 20 + decoded)]  # the decoder's
    assert widget.key_tokens == [f"w{i}" for i in range(3, 12)]  # the encoder's
    assert drawn(widget).shape == (decoded, 9)
    assert np.allclose(drawn(widget), own, atol=1e-5)
    said = "decoder layer 0 (show_layer's layer=2) · head 1, cross-attention"
    assert widget.title.startswith(said)
    assert f"{decoded} queries (orange) over 9 keys" in widget._still()
    decoder_self = show_layer(model, inputs, Words(), layer=1)  # queries and keys decoded
    assert decoder_self.tokens == widget.tokens and decoder_self.key_tokens == []
    named = [f"d{i}" for i in range(decoded)]
    keys = [f"e{j}" for j in range(9)]
    given = show_layer(model, inputs, named, key_tokens=keys, layer=2, head=1, title="bart")
    assert given.tokens == named and given.key_tokens == keys
    said = (
        "bart, decoder layer 0 (show_layer's layer=2) · head 1, cross-attention: decoder "
        "queries over encoder keys"
    )
    assert given.title == said


def test_a_decoder_layer_is_named_as_the_model_counts_it_and_as_layer_counts_it() -> None:
    """module=bart.decoder.layers[1].encoder_attn was titled "layer 5" where
    show_map(o.cross_attentions) calls the same head layer 1."""
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(0)
    config = transformers.BartConfig(
        vocab_size=50,
        d_model=32,
        encoder_layers=2,
        decoder_layers=2,
        encoder_attention_heads=4,
        decoder_attention_heads=4,
        encoder_ffn_dim=64,
        decoder_ffn_dim=64,
        max_position_embeddings=64,
        attn_implementation="eager",
    )
    model = transformers.BartModel(config).eval()
    inputs = {
        "input_ids": torch.arange(3, 12)[None],
        "decoder_input_ids": torch.arange(20, 27)[None],
    }
    module = model.decoder.layers[1].encoder_attn
    widget = show_layer(model, inputs, Words(), module=module, head=0)
    said = "decoder layer 1 (show_layer's layer=5) · head 0, cross-attention"
    assert widget.title.startswith(said)
    first = show_layer(model, inputs, Words(), layer=0, head=2)  # where both counts agree
    assert first.title == "encoder layer 0 · head 2"


def test_torch_decoder_layer_cross_attention_and_a_title_naming_layer_and_head() -> None:
    torch.manual_seed(1)
    layer = torch.nn.TransformerDecoderLayer(16, 4, 32, dropout=0.0, batch_first=True).eval()
    target, memory = torch.randn(1, 5, 16), torch.randn(1, 5, 16)  # as long: cross all the same
    run = lambda: layer(target, memory)  # noqa: E731
    widget = show_layer(layer, run, layer=1, head=3)
    assert "layer 1 · head 3" in widget.title and "cross-attention" in widget.title
    assert widget.key_tokens == [str(j) for j in range(5)]
    own = show_layer(layer, run, layer=0, head=2)
    assert own.title == "layer 0 · head 2" and own.key_tokens == []
    module = show_layer(layer, run, module=layer.multihead_attn, head=0)
    assert module.title.startswith("layer 1 · head 0")  # module= is found among the layers


def test_the_head_view_draws_queries_over_the_keys_of_another_sequence(
    browser: Browser, tmp_path: Path
) -> None:
    rng = np.random.default_rng(2)
    q, k, v = rng.normal(size=(3, 8)), rng.normal(size=(5, 8)) * 3, rng.normal(size=(5, 4))
    keys = ["le", "chat", "a", "mangé", "hier"]
    widget = show(q, k, v, tokens=["the", "cat", "ate"], key_tokens=keys)
    page, foreign, errors = open_file(browser, widget.save_html(tmp_path / "cross.html"))
    assert foreign == [] and errors == []
    assert page.locator("circle.key-dot").count() == 5  # a dot a key, not a query
    named = [t for t in page.locator("text.label.key").all_text_contents() if t]
    assert named and all(text.split()[0] in keys for text in named), named
    page.locator("button.token", has_text="ate").click()
    assert page.locator('[data-readout="row"]').first.inner_text().startswith("query 2: ate")
    page.close()
    with pytest.raises(ValueError, match="cross-attention needs key_tokens="):
        show(q, k, v, tokens=["the", "cat", "ate"])
    with pytest.raises(ValueError, match="mask='causal' is for self-attention"):
        show(q, k, v, tokens=["the", "cat", "ate"], key_tokens=keys, mask="causal")
