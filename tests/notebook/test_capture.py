"""show_layer reads q, k, v from a real torch layer by hooks: the weights they give are the
weights the layer itself computed, for GPT-2's fused projection, BERT's three and torch's own."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from selfattn.notebook import show_layer
from selfattn.notebook.capture import attention_layers, capture

torch = pytest.importorskip("torch")
nn = torch.nn


class Fused(nn.Module):
    """GPT-2's attention: c_attn to [q | k | v], causal, and it keeps its weights to compare."""

    is_causal = True

    def __init__(self, d: int = 16, n_head: int = 4) -> None:
        super().__init__()
        self.n_head, self.c_attn, self.c_proj = n_head, nn.Linear(d, 3 * d), nn.Linear(d, d)

    def forward(self, x: Any) -> Any:
        b, n, d = x.shape
        q, k, v = (
            t.view(b, n, self.n_head, -1).transpose(1, 2) for t in self.c_attn(x).chunk(3, -1)
        )
        s = q @ k.transpose(-1, -2) / (d // self.n_head) ** 0.5
        self.weights = s.masked_fill(
            ~torch.ones(n, n, dtype=torch.bool).tril(), -torch.inf
        ).softmax(-1)
        return x + self.c_proj((self.weights @ v).transpose(1, 2).reshape(b, n, d))


class Separate(nn.Module):
    """BERT's self-attention: query, key and value Linears, no mask."""

    def __init__(self, d: int = 16, heads: int = 2) -> None:
        super().__init__()
        self.num_attention_heads = heads
        self.query, self.key, self.value = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)

    def forward(self, x: Any) -> Any:
        b, n, d = x.shape
        q, k, v = (
            f(x).view(b, n, 2, -1).transpose(1, 2) for f in (self.query, self.key, self.value)
        )
        self.weights = (q @ k.transpose(-1, -2) / (d // 2) ** 0.5).softmax(-1)
        return (self.weights @ v).transpose(1, 2).reshape(b, n, d)


class Model(nn.Module):
    def __init__(self, layer: type[nn.Module]) -> None:
        super().__init__()
        self.embed = nn.Embedding(10, 16)
        self.layers = nn.ModuleList([layer(), layer()])

    def forward(self, ids: Any) -> Any:
        h = self.embed(ids)
        for block in self.layers:
            h = block(h)
        return h


class Tokenizer:
    def convert_ids_to_tokens(self, ids: list[int]) -> list[str]:
        return [f"Ġw{i}" for i in ids]


def drawn(widget) -> np.ndarray:
    n = len(widget.tokens)
    return np.frombuffer(widget.weights, dtype="<f4").reshape(n, n)


@pytest.mark.parametrize("layer", [Fused, Separate])
def test_the_plane_draws_the_weights_the_layer_computed(layer: type[nn.Module]) -> None:
    torch.manual_seed(0)
    model = Model(layer)
    ids = torch.tensor([[1, 2, 3, 4, 5, 6], [6, 5, 4, 3, 2, 1]])
    assert attention_layers(model) == list(model.layers)
    widget = show_layer(model, ids, Tokenizer(), layer=1, head=1, batch=1)
    assert widget.tokens == ["w6", "w5", "w4", "w3", "w2", "w1"]
    assert widget.mask == (
        ""
        if layer is Separate
        else "".join("1" if j <= i else "0" for i in range(6) for j in range(6))
    )
    assert np.allclose(drawn(widget), model.layers[1].weights[1, 1].numpy(), atol=1e-5)
    q, k, v = capture(model.layers[0], lambda: model(ids))
    assert (
        q.shape == k.shape == v.shape == (2, model.layers[0].weights.shape[1], 6, 16 // q.shape[1])
    )


def test_torchs_own_multihead_attention_is_read_from_its_packed_projection() -> None:
    torch.manual_seed(1)
    mha = nn.MultiheadAttention(16, 4, batch_first=True)
    x = torch.randn(1, 5, 16)
    _, weights = mha(x, x, x, average_attn_weights=False)
    widget = show_layer(mha, lambda: mha(x, x, x), list("abcde"), head=3, module=mha)
    assert np.allclose(drawn(widget), weights[0, 3].detach().numpy(), atol=1e-5)
    with pytest.raises(ValueError, match="no attention module"):
        show_layer(nn.Linear(2, 2), torch.zeros(2))
