"""Attention variants checked against their own reference, not read as wrong (issue 32)."""

from __future__ import annotations

import numpy as np

from selfattn.check import check


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
