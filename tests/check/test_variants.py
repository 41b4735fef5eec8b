"""Attention variants checked against their own reference, not read as wrong (issue 32)."""

from __future__ import annotations

import numpy as np

from selfattn.check import check

from .published import load, needs_jax


def _softmax_rows(scores: np.ndarray) -> np.ndarray:
    w = np.exp(scores - scores.max(-1, keepdims=True))
    return w / w.sum(-1, keepdims=True)


def _banded(window: int, shift: int = 0):
    def attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, causal: bool = False):
        scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
        if causal:  # Mistral's sliding window: query i sees keys i - window < j <= i
            i, j = np.indices(scores.shape[-2:])
            scores = np.where((j <= i + shift) & (i - j < window), scores, -np.inf)
        return _softmax_rows(scores) @ v

    return attention


def test_sliding_window_shorter_than_the_input_is_recognised() -> None:
    report = check(_banded(4))
    assert report.ok, str(report)
    assert any("the 3 keys before it" in note for note in report.notes), report.notes


def test_sliding_window_that_sees_the_next_key_is_still_a_leak() -> None:
    report = check(_banded(4, shift=1))
    assert "causal-mask-off-by-one" in report.ids or "causal-leak" in report.ids, str(report)


def test_scaled_cosine_layer_is_checked_against_its_own_reference() -> None:
    """Swin Transformer v2's attention: q and k normalised, their cosine times a learned
    logit scale, clamped and exponentiated; read from the run, not taken for a wrong output."""
    import math

    import pytest

    torch = pytest.importorskip("torch")
    nn, F = torch.nn, torch.nn.functional

    class CosineAttention(nn.Module):
        def __init__(self, dim: int = 16, num_heads: int = 2) -> None:
            super().__init__()
            self.num_heads = num_heads
            self.qkv = nn.Linear(dim, dim * 3)
            self.proj = nn.Linear(dim, dim)
            self.logit_scale = nn.Parameter(torch.log(10 * torch.ones((num_heads, 1, 1))))

        def forward(self, x):
            b, n, c = x.shape
            qkv = self.qkv(x).reshape(b, n, 3, self.num_heads, -1).permute(2, 0, 3, 1, 4)
            q, k, v = qkv[0], qkv[1], qkv[2]
            attn = F.normalize(q, dim=-1) @ F.normalize(k, dim=-1).transpose(-2, -1)
            attn = attn * torch.clamp(self.logit_scale, max=math.log(1.0 / 0.01)).exp()
            x = (attn.softmax(dim=-1) @ v).transpose(1, 2).reshape(b, n, c)
            return self.proj(x)

    assert check(CosineAttention()).ok


@needs_jax
def test_extra_logit_softmax_is_checked_against_its_own_reference() -> None:
    """T5's dense attention with `use_extra_logit`: the weights sum to less than one by design.
    Scaled, it is ok and said to be the off-by-one softmax; unscaled, the scale is still missing."""
    t5 = load("jax_t5_dense_attention.py", "dot_product_attention", prefix="variant")
    report = check(t5, args={"rescale_logits": True, "use_extra_logit": True})
    assert report.ok, str(report)
    assert any("extra zero logit" in note for note in report.notes), report.notes
    unscaled = check(t5, args={"use_extra_logit": True})
    assert [f.id for f in unscaled.errors] == ["scale-missing"], str(unscaled)
