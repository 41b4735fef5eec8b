"""A causal flag under a name of its own is found by what it does, not by its name (issue 32)."""

from __future__ import annotations

import numpy as np

from selfattn.check import check


def _softmax_rows(scores: np.ndarray) -> np.ndarray:
    w = np.exp(scores - scores.max(-1, keepdims=True))
    return w / w.sum(-1, keepdims=True)


def test_a_flag_named_mask_future_is_a_flag_and_its_bug_is_named() -> None:
    """Named like a mask, it is a switch: probed as a mask, its off-by-one went unseen."""

    def attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, mask_future: bool = False):
        scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
        if mask_future:  # k=1: each query also sees the next key
            scores = np.where(np.tri(scores.shape[-1], k=1, dtype=bool), scores, -np.inf)
        return _softmax_rows(scores) @ v

    report = check(attention)
    assert [f.id for f in report.errors] == ["causal-mask-off-by-one"], str(report)
    assert "attention(q, k, v, mask_future=True)" in report.errors[0].repro


def test_a_flag_among_other_switches() -> None:
    """`autoregressive` is the flag; `sharpen` changes every row, the last one too."""

    def attention(q, k, v, sharpen: bool = False, autoregressive: bool = False):
        scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1]) * (2.0 if sharpen else 1.0)
        if autoregressive:
            scores = np.where(np.tri(scores.shape[-1], dtype=bool), scores, -np.inf)
        return _softmax_rows(scores) @ v

    report = check(attention)
    assert report.ok, str(report)
    assert any("`autoregressive` changes every output but the last" in n for n in report.notes)
