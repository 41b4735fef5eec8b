"""`selfattn check` on the scale: a built-in causal mask does not hide a wrong one, and soft-capped
scores are the reference when the kernel caps them."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from selfattn.check import check

from .published import load, needs_torch, notes

# -- a built-in causal mask must not hide a wrong scale ---------------------------------


@needs_torch
def test_builtin_causal_mask_with_wrong_scale() -> None:
    report = check(load("torch_nanogpt_head_scale_C.py", "head"))
    assert [f.id for f in report.errors] == ["scale-wrong"], str(report)
    assert "masks the future by itself" in notes(report)
    assert "5.657" in report.errors[0].message  # sqrt(32): the model width, not the head size
    correct = check(load("torch_nanogpt_head.py", "head"))
    assert correct.ok and "masks the future by itself" in notes(correct)


def test_builtin_causal_mask_with_wrong_scale_numpy() -> None:
    def attention(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
        n = q.shape[0]
        scores = q @ k.T * 32**-0.5
        scores = np.where(np.tril(np.ones((n, n), dtype=bool)), scores, -np.inf)
        w = np.exp(scores - scores.max(-1, keepdims=True))
        return w / w.sum(-1, keepdims=True) @ v

    report = check(attention)
    assert [f.id for f in report.errors] == ["scale-wrong"], str(report)


# -- logit soft-capping ----------------------------------------------------------------


@needs_torch
@pytest.mark.parametrize(
    ("name", "args", "said"),
    [
        ("attention", {"softcap": 5.0}, "the `softcap` passed"),
        ("attention", {"softcap": 5.0, "scaling": 0.25}, "the `scaling` and `softcap` passed"),
        ("attention_capped", None, "the kernel's defaults"),
    ],
)
def test_softcapped_scores_are_the_reference(name: str, args: Any, said: str) -> None:
    """Gemma 2's cap is right, not a wrong output; the reference takes it from the call."""
    report = check(load("torch_softcap.py", name), args=args)
    assert report.ok, str(report)
    assert f"the reference follows {said}" in notes(report) and "tanh" in notes(report)


@needs_torch
def test_without_its_cap_the_kernel_is_plain_attention() -> None:
    report = check(load("torch_softcap.py", "attention"))
    assert report.ok and "tanh" not in notes(report), str(report)
