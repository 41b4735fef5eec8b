"""`selfattn check` on mask arguments: every one driven, key-padding masks checked, renormalised
masks explained, a causal module's mask read as padding, and which parameters are masks."""

from __future__ import annotations

from selfattn.check import check

from .published import load, needs_torch, notes

# -- every mask parameter is driven; key-padding masks -----------------------------------


@needs_torch
def test_second_mask_argument_is_driven() -> None:
    report = check(load("torch_two_masks.py", "attention"))
    assert [f.id for f in report.errors] == ["causal-mask-multiplied"], str(report)
    assert "`attn_mask`" in report.errors[0].message
    assert "carried by `mask`" in notes(report)


@needs_torch
def test_key_padding_mask_is_checked_not_refused() -> None:
    report = check(load("torch_key_padding.py", "attention"))
    assert report.ok, str(report)
    assert "key-padding mask" in notes(report) and "cannot express causality" in notes(report)
    assert any(c.name.startswith("padded keys") and c.status == "pass" for c in report.checks)
    both = check(load("torch_flash_ref_bnhd.py", "attention_ref"))
    assert both.ok and "key-padding mask" in notes(both), str(both)
    bad = check(load("torch_padding_multiplied.py", "attention_ref"))
    assert [f.id for f in bad.errors] == ["padding-mask-leak"], str(bad)
    assert "key_padding_mask=mask)" in bad.errors[0].repro  # the reproduction passes it


# -- renormalised multiplicative masks ---------------------------------------------------


@needs_torch
def test_renormalised_mask_is_explained() -> None:
    report = check(load("torch_renorm_mask.py", "attention"))
    assert [f.id for f in report.errors] == ["causal-mask-after-softmax"], str(report)
    message = report.errors[0].message
    assert "renormalised" in message and "0/0" in message and "masked future" in message


# -- a method of a module, causal by itself, with a padding mask ------------------------


@needs_torch
def test_method_of_a_module_in_training_runs_without_dropout() -> None:
    method = load("torch_gpt2_eager_attn.py", "gpt2._attn")
    assert method.__self__.training
    report = check(method)
    # switched to eval mode for the check, and back to training after it
    assert method.__self__.training and "eval mode" in notes(report), notes(report)
    assert report.ok, str(report)


@needs_torch
def test_mask_argument_of_a_causal_kernel_is_checked_as_padding() -> None:
    """A kernel causal by itself with a mask argument is not a flag stuck on: its mask adds
    padding, a `head_mask` is no mask over positions, and a mask it drops is named."""
    report = check(load("torch_gpt2_eager_attn.py", "gpt2._attn"))
    said = notes(report)
    assert "masks the future by itself" in said and "head_mask" not in said, said
    assert any(c.name.startswith("padded keys (`attention_mask`)") for c in report.checks)
    dropped = check(load("torch_gpt2_eager_attn.py", "gpt2_refactored._attn"))
    assert dropped.ids == ["padding-mask-leak"], str(dropped)
    assert "gpt2_refactored.eval()" in dropped.errors[0].repro


# -- which parameters are masks ----------------------------------------------------------


def test_mask_names() -> None:
    from selfattn.check.signature import is_mask_name

    masks = ("mask", "attn_mask", "key_padding_mask", "attention_mask", "attn_bias", "bias")
    others = ("drop_mask", "dropout_mask", "query_padding_mask", "head_mask", "scale", "p")
    assert [n for n in masks if not is_mask_name(n)] == []
    assert [n for n in others if is_mask_name(n)] == []


@needs_torch
def test_causal_mask_through_attn_bias_and_a_dropout_mask() -> None:
    report = check(load("torch_bias_and_drop_mask.py", "ref_attention"))
    assert report.ok, str(report)
    passed = {c.name for c in report.checks if c.status == "pass"}
    assert "causal mask applied as in the reference" in passed, str(report)
    assert "bias argument `attn_bias`: assumed additive" in notes(report), notes(report)
