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


class Grouped(nn.Module):
    """A Llama-style layer with grouped-query attention: 8 q heads share 2 k, v heads (each k,
    v head serves 4 q heads in a row, as transformers' repeat_kv has it), causal."""

    is_causal = True

    def __init__(self, d: int = 32, heads: int = 8, kv: int = 2) -> None:
        super().__init__()
        self.config = type("Config", (), {"num_attention_heads": heads, "num_key_value_heads": kv})
        self.head_dim, self.heads, self.kv = d // heads, heads, kv
        self.q_proj = nn.Linear(d, d)
        self.k_proj, self.v_proj = nn.Linear(d, kv * d // heads), nn.Linear(d, kv * d // heads)

    def forward(self, x: Any) -> Any:
        b, n, _ = x.shape
        q = self.q_proj(x).view(b, n, self.heads, -1).transpose(1, 2)
        k, v = (f(x).view(b, n, self.kv, -1).transpose(1, 2) for f in (self.k_proj, self.v_proj))
        k, v = (t.repeat_interleave(self.heads // self.kv, dim=1) for t in (k, v))
        s = q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5
        self.weights = s.masked_fill(~torch.ones(n, n, dtype=torch.bool).tril(), -torch.inf)
        self.weights = self.weights.softmax(-1)
        return (self.weights @ v).transpose(1, 2).reshape(b, n, -1)


def test_a_grouped_query_layer_draws_each_q_head_with_the_k_v_head_it_reads() -> None:
    torch.manual_seed(2)
    layer = Grouped()
    x = torch.randn(1, 13, 32)
    for head in (0, 3, 4, 7):  # heads 0-3 read k, v head 0; heads 4-7 read head 1
        widget = show_layer(layer, lambda: layer(x), module=layer, head=head)
        assert widget.mask.startswith("1000")  # causal, as the layer says
        assert np.allclose(drawn(widget), layer.weights[0, head].numpy(), atol=1e-5)
    q, k, v = capture(layer, lambda: layer(x))
    assert q.shape == (1, 8, 13, 4) and k.shape == v.shape == (1, 2, 13, 4)
    # a wrong count: the error says what it found and what it expected
    with pytest.raises(ValueError, match=r"q is 32 wide: not 3 heads of 4"):
        capture(layer, lambda: layer(x), heads=3)
    del layer.head_dim
    with pytest.raises(ValueError, match=r"k is 8 wide, q is 32 wide in 2 heads of 16"):
        capture(layer, lambda: layer(x), heads=2)


class Lens(nn.Module):
    """A stand-in for TransformerLens 4's TransformerBridge (TransformerLens itself is not
    installed here: it would load a model from the hub), built from what its documentation
    gives: `cfg`, `run_with_cache(input, names_filter=)` returning (logits, cache) with
    `blocks.{l}.attn.hook_q`/`hook_k`/`hook_v` as (batch, pos, heads, d_head) (k, v with fewer
    heads under grouped-query attention), and `to_str_tokens` that takes text or an id
    array and refuses a list of ids as the bridge does. Its attention holds a `qkv` child the
    forward never calls, which made show_layer fail with KeyError: 'qkv'."""

    def __init__(self) -> None:
        super().__init__()
        self.cfg = type("Cfg", (), {"n_layers": 2, "n_heads": 4, "attention_dir": "causal"})
        self.embed = nn.Embedding(10, 16)
        self.blocks = nn.ModuleList([Grouped(16, heads=4, kv=2) for _ in range(2)])
        for block in self.blocks:
            block.qkv = nn.Linear(16, 48)  # a bridge component the hooks would wait on in vain

    def to_str_tokens(self, given: Any) -> list[str]:
        if isinstance(given, str):
            return given.split()
        if isinstance(given, list):  # the bridge reads a list as a list of texts
            raise ValueError(f"Invalid input type to to_str_tokens: {type(given[0])}")
        return [f"t{int(i)}" for i in np.asarray(given).ravel()]

    def forward(self, given: Any) -> Any:
        return self.run_with_cache(given)[0]

    def run_with_cache(self, given: Any, names_filter: Any = None) -> tuple[Any, dict]:
        ids = (
            torch.tensor([[len(w) % 10 for w in given.split()]])
            if isinstance(given, str)
            else given
        )
        cache, h = {}, self.embed(ids)
        for at, block in enumerate(self.blocks):
            b, n, _ = h.shape
            q = block.q_proj(h).view(b, n, block.heads, -1)
            k, v = (f(h).view(b, n, block.kv, -1) for f in (block.k_proj, block.v_proj))
            for name, x in zip("qkv", (q, k, v), strict=True):
                cache[f"blocks.{at}.attn.hook_{name}"] = x
            h = h + block(h)
        return h, {
            name: x for name, x in cache.items() if names_filter is None or names_filter(name)
        }


def test_a_transformerlens_bridge_is_read_from_its_own_hooks_and_tokens() -> None:
    torch.manual_seed(3)
    model = Lens()
    ids = torch.tensor([[1, 2, 3, 4, 5]])
    widget = show_layer(model, ids, layer=1, head=3)
    assert widget.tokens == ["t1", "t2", "t3", "t4", "t5"]  # the model's own tokens of the ids
    assert np.allclose(drawn(widget), model.blocks[1].weights[0, 3].numpy(), atol=1e-5)
    assert widget.mask.startswith("1000")  # attention_dir "causal"
    text = show_layer(model, "the cat ate it", layer=0, head=1)
    assert text.tokens == ["the", "cat", "ate", "it"]
    assert show_layer(model, ids, model, layer=0).tokens == widget.tokens  # as a tokenizer
    with pytest.raises(ValueError, match=r"layer=5: the model has layers 0\.\.1 \(or -2\.\.-1"):
        show_layer(model, ids, layer=5)
