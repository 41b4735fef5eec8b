"""Layers read from what they run, not from what their attributes are named (issue 32)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from selfattn.check import check

torch = pytest.importorskip("torch")
nn, F = torch.nn, torch.nn.functional


class Mixer(nn.Module):
    """A fused map `mix`, `groups` heads, the heads joined by `emit`: names never seen."""

    def __init__(self, width: int = 16, groups: int = 4, scale: float | None = None) -> None:
        super().__init__()
        self.mix = nn.Linear(width, 3 * width)
        self.emit = nn.Linear(width, width)
        self.groups, self.scale = groups, scale

    def forward(self, x: Any) -> Any:
        b, n, c = x.shape
        q, k, v = self.mix(x).chunk(3, dim=-1)
        q, k, v = (t.view(b, n, self.groups, c // self.groups).transpose(1, 2) for t in (q, k, v))
        scale = self.scale or 1 / math.sqrt(q.shape[-1])
        w = (q @ k.transpose(-2, -1) * scale).softmax(-1)
        return self.emit((w @ v).transpose(1, 2).reshape(b, n, c))


class Fused(nn.Module):
    """Separate maps `Wq`, `Wk`, `Wv`, `Wo`, `h` heads, fused attention, causal."""

    def __init__(self, width: int = 16) -> None:
        super().__init__()
        self.Wq, self.Wk, self.Wv = (nn.Linear(width, width, bias=False) for _ in range(3))
        self.Wo = nn.Linear(width, width)
        self.h = 2

    def forward(self, x: Any) -> Any:
        b, n, c = x.shape
        q, k, v = (m(x).view(b, n, self.h, -1).transpose(1, 2) for m in (self.Wq, self.Wk, self.Wv))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.Wo(y.transpose(1, 2).reshape(b, n, c))


class HeadsElsewhere(Mixer):
    """A fused map under a known name (`qkv`), the head count under one that is not (`h`)."""

    def __init__(self) -> None:
        super().__init__()
        self.qkv, self.h = self.mix, self.groups
        del self.mix, self.groups

    def forward(self, x: Any) -> Any:
        b, n, c = x.shape
        q, k, v = (t.view(b, n, self.h, -1).transpose(1, 2) for t in self.qkv(x).chunk(3, dim=-1))
        w = (q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])).softmax(-1)
        return self.emit((w @ v).transpose(1, 2).reshape(b, n, c))


class OutElsewhere(nn.Module):
    """Maps in under known names (`q_proj`...), the map out under one that is not (`merge`)."""

    def __init__(self, width: int = 16) -> None:
        super().__init__()
        self.q_proj, self.k_proj, self.v_proj = (nn.Linear(width, width) for _ in range(3))
        self.merge = nn.Linear(width, width)
        self.num_heads = 2

    def forward(self, x: Any) -> Any:
        b, n, c = x.shape
        q, k, v = (
            p(x).view(b, n, self.num_heads, -1).transpose(1, 2)
            for p in (self.q_proj, self.k_proj, self.v_proj)
        )
        y = F.scaled_dot_product_attention(q, k, v)
        return self.merge(y.transpose(1, 2).reshape(b, n, c))


@pytest.mark.parametrize(
    ("layer", "said"),
    [
        (Mixer(), "projections `mix, emit`: 4 heads of size 4"),
        (Fused(), "projections `Wq, Wk, Wv, Wo`: 2 heads of size 8"),
        (HeadsElsewhere(), "projections `qkv, emit`: 4 heads of size 4"),
        (OutElsewhere(), "projections `q_proj, k_proj, v_proj, merge`: 2 heads of size 8"),
    ],
)
def test_layer_read_from_its_run(layer: Any, said: str) -> None:
    report = check(layer)
    assert report.ok and report.kind == "layer", str(report)
    assert any(said in note for note in report.notes), report.notes


def test_bug_in_a_layer_read_from_its_run() -> None:
    """The maps read from the run feed the same reference and the same known bugs."""
    report = check(Mixer(groups=2, scale=1 / 8))  # 1/d, d = 8: scaled by d, not sqrt(d)
    assert [f.id for f in report.errors] == ["scale-by-d"], str(report)


class PackedBatchFirst(nn.Module):
    """nn.MultiheadAttention's packed `in_proj_weight`, in a layer of its own that takes
    (batch, n, C) and has no `batch_first` to say so."""

    def __init__(self, width: int = 12, heads: int = 3) -> None:
        super().__init__()
        self.in_proj_weight = nn.Parameter(torch.randn(3 * width, width) / width**0.5)
        self.in_proj_bias = nn.Parameter(torch.zeros(3 * width))
        self.out_proj = nn.Linear(width, width)
        self.num_heads = heads

    def forward(self, x: Any) -> Any:
        b, n, c = x.shape
        qkv = F.linear(x, self.in_proj_weight, self.in_proj_bias).chunk(3, dim=-1)
        q, k, v = (t.view(b, n, self.num_heads, -1).transpose(1, 2) for t in qkv)
        y = F.scaled_dot_product_attention(q, k, v)
        return self.out_proj(y.transpose(1, 2).reshape(b, n, c))


def test_packed_weights_without_batch_first_take_batch_first() -> None:
    report = check(PackedBatchFirst())
    assert report.ok, str(report)
    assert "(n, batch, C)" not in str(report)


def test_a_keyword_only_random_key_is_not_the_keys() -> None:
    np = pytest.importorskip("numpy")

    def attention(query: Any, key_states: Any, value: Any, *, key: Any = None) -> Any:
        s = query @ key_states.swapaxes(-2, -1) / np.sqrt(query.shape[-1])
        w = np.exp(s - s.max(-1, keepdims=True))
        return w / w.sum(-1, keepdims=True) @ value

    assert check(attention).ok


def test_image_layer_is_checked_as_an_n_by_1_image() -> None:
    """Segment Anything's attention takes (B, H, W, C): x is given as an n x 1 image, and a
    bug in it is named with a reproduction that runs."""
    import contextlib
    import io

    from .corpus_cases import load

    layer = load("torch_layer_sam_image.py")
    assert check(layer).ok
    layer.scale = 1.0  # the scale left out
    report = check(layer)
    assert [f.id for f in report.errors] == ["scale-missing"], str(report)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(report.errors[0].repro, {})
    assert "tensor(" in printed.getvalue()


def test_a_scale_of_its_own_is_read_from_the_run() -> None:
    """Mixer keeps its scale as `scale`, a name no table reads: 0.4 is taken as the layer's;
    1/d is still the known bug (test_bug_in_a_layer_read_from_its_run), and d**-0.25, the
    scale meant for q and k each applied once, is no scale of its own either."""
    report = check(Mixer(scale=0.4))
    assert report.ok, str(report)
    assert any("scaled by 0.4 (`scale`)" in note for note in report.notes), report.notes
    assert not check(Mixer(scale=4**-0.25)).ok  # head size 4


def test_the_softmax_axis_is_read_from_the_run() -> None:
    from .corpus_cases import load

    report = check(load("torch_layer_softmax_axis.py"))
    assert any("over the queries (its dim read from the run)" in n for n in report.notes)
    assert not any("over the queries" in n for n in check(Mixer()).notes)


def test_a_mask_argument_is_found_where_it_goes() -> None:
    from selfattn.check.projections import find_projections
    from selfattn.check.runner import Runner
    from selfattn.check.trace import masks_seen

    from .corpus_cases import load

    layer = load("torch_layer_mask_other_name.py")
    proj = find_projections(layer)
    assert proj is not None
    assert masks_seen(layer, Runner(layer, 10.0, 60.0), proj, {}) == ["future_bias"]
    assert masks_seen(Mixer(), Runner(Mixer(), 10.0, 60.0), proj, {}) == []
