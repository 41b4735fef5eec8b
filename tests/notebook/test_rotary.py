"""show_layer on a rotary layer draws the weights the layer computed: q and k rotated as the
layer rotates them (Hugging Face's `position_embeddings`), never the unrotated q·k, which
points ~30-70 % of a peaked Llama's rows at a different top key; a layer whose change to q
and k the hooks cannot follow is refused with one line, never drawn wrong."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from selfattn.notebook import show_layer

torch = pytest.importorskip("torch")
nn = torch.nn


def rotation(n: int, d: int, base: float = 10000.0) -> tuple[Any, Any]:
    """Llama's (cos, sin), each (1, n, d), as LlamaRotaryEmbedding makes them."""
    inv = 1.0 / base ** (torch.arange(0, d, 2).float() / d)
    angles = torch.arange(n).float()[:, None] * inv[None]
    both = torch.cat([angles, angles], -1)[None]
    return both.cos(), both.sin()


def rotate_half(x: Any) -> Any:
    return torch.cat([-x[..., x.shape[-1] // 2 :], x[..., : x.shape[-1] // 2]], -1)


class Rotary(nn.Module):
    """LlamaAttention as transformers 4.48+ writes it: grouped-query (8 q heads, 2 k, v
    heads), handed its rotation by the model as `position_embeddings=(cos, sin)`, causal."""

    is_causal = True

    def __init__(self, d: int = 64, heads: int = 8, kv: int = 2) -> None:
        super().__init__()
        self.config = type("Config", (), {"num_attention_heads": heads, "num_key_value_heads": kv})
        self.head_dim, self.heads, self.kv = d // heads, heads, kv
        self.q_proj = nn.Linear(d, d, bias=False)
        self.k_proj = nn.Linear(d, kv * d // heads, bias=False)
        self.v_proj = nn.Linear(d, kv * d // heads, bias=False)
        with torch.no_grad():  # peaked, as a trained model's attention is
            self.q_proj.weight.mul_(8)
            self.k_proj.weight.mul_(8)

    def forward(self, x: Any, position_embeddings: tuple[Any, Any]) -> Any:
        b, n, _ = x.shape
        q = self.q_proj(x).view(b, n, self.heads, -1).transpose(1, 2)
        k, v = (f(x).view(b, n, self.kv, -1).transpose(1, 2) for f in (self.k_proj, self.v_proj))
        cos, sin = (t[:, None] for t in position_embeddings)
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        k, v = (t.repeat_interleave(self.heads // self.kv, dim=1) for t in (k, v))
        s = q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5
        self.weights = s.masked_fill(~torch.ones(n, n, dtype=torch.bool).tril(), -torch.inf)
        self.weights = self.weights.softmax(-1)
        return (self.weights @ v).transpose(1, 2).reshape(b, n, -1)


def drawn(widget: Any) -> np.ndarray:
    n = len(widget.tokens)
    return np.frombuffer(widget.weights, dtype="<f4").reshape(n, n)


@pytest.mark.parametrize("n", [13, 64])
def test_a_rotary_layer_is_drawn_with_q_and_k_rotated_as_it_rotates_them(n: int) -> None:
    torch.manual_seed(4)
    layer = Rotary()
    x, turn = torch.randn(1, n, 64), rotation(n, 8)
    widget = show_layer(layer, lambda: layer(x, position_embeddings=turn), module=layer, head=5)
    assert np.allclose(drawn(widget), layer.weights[0, 5].numpy(), atol=1e-5)
    # and positionally, as Llama's decoder layer passes it
    widget = show_layer(layer, lambda: layer(x, turn), module=layer, head=2)
    assert np.allclose(drawn(widget), layer.weights[0, 2].numpy(), atol=1e-5)


def test_a_rotation_the_hooks_cannot_follow_is_refused_in_one_line() -> None:
    torch.manual_seed(5)
    layer = Rotary()
    x, turn = torch.randn(1, 9, 64), rotation(9, 8)

    class Inside(Rotary):
        """An older HF layer: it makes its own rotation from `rotary_emb`, given nothing."""

        def __init__(self) -> None:
            super().__init__()
            self.rotary_emb = nn.Identity()

        def forward(self, x: Any) -> Any:  # type: ignore[override]
            return super().forward(x, turn)

    inside = Inside()
    with pytest.raises(ValueError, match=r"^Inside: it rotates q and k \(rotary: rotary_emb\)"):
        show_layer(inside, lambda: inside(x), module=inside)
    layer.q_norm = nn.LayerNorm(8)  # Qwen3, OLMo2: q and k normalised per head after projecting
    with pytest.raises(ValueError, match=r"normalises q and k after projecting them \(q_norm\)"):
        show_layer(layer, lambda: layer(x, turn), module=layer)


def test_a_grouped_query_llama_matches_its_own_attentions() -> None:
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        hidden_size=256,
        intermediate_size=512,
        num_hidden_layers=2,
        num_attention_heads=8,
        num_key_value_heads=2,
        vocab_size=1000,
        attn_implementation="eager",
    )
    model = transformers.LlamaForCausalLM(config).eval()
    with torch.no_grad():
        for block in model.model.layers:
            block.self_attn.q_proj.weight.mul_(8)
            block.self_attn.k_proj.weight.mul_(8)
    for n in (13, 64):
        ids = {"input_ids": torch.randint(0, 1000, (1, n))}
        with torch.no_grad():
            own = model(**ids, output_attentions=True).attentions[1][0, 5].numpy()
        widget = show_layer(model, ids, [f"t{i}" for i in range(n)], layer=1, head=5)
        assert np.allclose(drawn(widget), own, atol=1e-5)
