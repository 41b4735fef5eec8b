"""`selfattn check` on kernels in half precision: tolerances follow the kernel's precision, and
rounding inside a wide kernel is read from the values, not taken for a bug."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from selfattn.check import check

from .published import load, needs_torch, notes, softmax, torch

# -- half precision: tolerances follow the kernel's precision ---------------------------


@needs_torch
@pytest.mark.parametrize(
    ("file", "name", "args"),
    [
        ("torch_whisper_fp16.py", "attn.qkv_attention", None),
        ("torch_hf_eager_bf16.py", "eager_attention_forward", {"module": None}),
    ],
)
def test_additive_mask_in_half_precision_is_no_leak(file: str, name: str, args: Any) -> None:
    """torch adds a boolean mask as +1 on every score: in fp16/bf16 that moves the output a
    little, which must not read as "boolean block" and then as a leak."""
    report = check(load(file, name), args=args)
    assert report.ok and "causal-leak" not in report.ids, str(report)
    assert "additive" in notes(report)


@needs_torch
def test_bool_mask_added_in_float16() -> None:
    """A kernel that adds whatever mask it is given, in float16: the mask convention is
    additive, and the causal check passes."""

    def attention(q: Any, k: Any, v: Any, mask: Any = None) -> Any:
        q, k, v = q.half(), k.half(), v.half()
        scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
        if mask is not None:
            scores = scores + mask
        return torch.softmax(scores.float(), dim=-1).half() @ v

    report = check(attention)
    assert report.ok, str(report)
    assert "additive" in notes(report)


# -- half precision inside a wide kernel -------------------------------------------------


def test_rounding_inside_is_read_from_the_values() -> None:
    from selfattn.check.frameworks import rounded_inside
    from selfattn.check.reference import BFLOAT16, FLOAT16

    x = np.random.default_rng(0).standard_normal((6, 6))
    assert rounded_inside(x) is None
    assert rounded_inside(x.astype(np.float32).astype(np.float64)) is None
    assert rounded_inside(x.astype(np.float16).astype(np.float64)) is FLOAT16
    top = (x.astype(np.float32).view(np.uint32) & 0xFFFF0000).view(np.float32)
    assert rounded_inside(top.astype(np.float64)) is BFLOAT16
    # whole numbers or one repeated value are on every grid: they say nothing
    assert rounded_inside(np.round(x * 4)) is None
    assert rounded_inside(np.full((6, 6), 0.25)) is None


def weights_in_half(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Right, with the weights stored in float16 and the product with v in float64."""
    w = softmax(q @ k.T / np.sqrt(q.shape[-1])).astype(np.float16)
    return w.astype(np.float64) @ v


def weights_sum_over_one(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Wrong by 0.02 %: the weights sum to 1.0002, an error of float16's size in float64."""
    return 1.0002 * softmax(q @ k.T / np.sqrt(q.shape[-1])) @ v


def test_weights_rounded_to_half_are_read_with_the_identity() -> None:
    report = check(weights_in_half)
    assert report.ok, str(report)
    assert "float16 inside" in notes(report), notes(report)


def test_an_error_of_half_size_in_float64_is_still_named() -> None:
    report = check(weights_sum_over_one)
    assert report.ids == ["weights-not-normalized"], str(report)
    assert "1.0002 .. 1.0002" in report.errors[0].message  # not "1 .. 1"


@needs_torch
def test_gpt2_style_half_module_is_checked_as_always_causal() -> None:
    report = check(load("torch_gpt2_half_inside.py", "attn"))
    assert report.ok, str(report)
    said = notes(report)
    assert "float16 inside" in said and "masks the future by itself" in said, said
    assert any(c.name.startswith("no future leak") and c.status == "pass" for c in report.checks)


@needs_torch
def test_mask_multiplied_in_half_is_the_leak_not_the_sums() -> None:
    report = check(load("torch_gpt2_half_mask_multiplied.py", "attn"))
    assert report.ids == ["causal-mask-multiplied"], str(report)
    assert "float16 to tell from 0" in report.errors[0].message
