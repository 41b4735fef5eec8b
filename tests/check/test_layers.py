"""`selfattn check` on layers with their own projections, called on hidden states x: weights
read under their published names, heads, masks, norms, residuals and rotations."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest

from selfattn.check import check

from .published import CORPUS, ROOT, load, needs_torch, notes, torch

# -- a layer with its own projections, called on hidden states ---------------------------


@needs_torch
@pytest.mark.parametrize(
    ("file", "name", "said"),
    [
        ("torch_layer_nanogpt.py", "manual", "checked as causal: its class is CausalSelfAttention"),
        ("torch_layer_nanogpt.py", "flash", "checked as causal: its class is CausalSelfAttention"),
        ("torch_layer_vit.py", "attn", "every position sees the whole sequence"),
        # heads held as modules, and k, v from one map: both were taken for models of ids
        ("torch_layer_heads_as_modules.py", "mha", "`heads[*].query, heads[*].key, "),
        ("torch_layer_heads_as_modules.py", "mha", "its buffer `heads.0.tril` is a triangular"),
        ("torch_layer_to_kv.py", "attn", "projections `to_q, to_kv, to_out`: 2 heads of size 8"),
        ("torch_layer_from_scratch.py", "single", "`W_query, W_key, W_value`: 1 head of size 8"),
        ("torch_layer_from_scratch.py", "stacked", "W_value`: 2 heads of size 4, C = 16"),
        ("torch_layer_from_scratch.py", "mha", "W_value, out_proj`: 4 heads of size 4, C = 16"),
        # dropout as a probability handed to F.dropout: before, a random output
        ("torch_layer_t5_style.py", "scaled", "the module was switched to eval mode (no dropout)"),
        ("torch_layer_t5_style.py", "scaled", "projections `q, k, v, o`: 4 heads of size 8"),
        # rotary embeddings handed in by the model: before, could not be called with x alone
        (
            "torch_layer_rotary.py",
            "meta",
            "through `freqs_cis`: handed in at angle 0 (e^(i 0) = 1)",
        ),
        ("torch_layer_rotary.py", "fast", "(cos 1 and sin 0 in a last axis of two)"),
        # a fused map with fewer k, v heads than q heads: before, not found
        ("torch_layer_rotary.py", "fast", "`wqkv, wo`: 4 heads of size 8, sharing 2 k, v heads"),
        ("torch_layer_rotary.py", "hf", "through `position_embeddings`: handed in at angle 0"),
        ("torch_layer_rotary.py", "hf", "the causal mask goes in through `attention_mask`"),
        # a layer that rotates q and k itself: before, a wrong output
        ("torch_layer_rotary.py", "inner", "its angles (`rotary.cos`, `rotary.sin`) are held at"),
        # Gemma 2's soft cap on the scores, read from the layer: before, a wrong output
        (
            "torch_layer_rotary.py",
            "capped",
            "soft-capped as 50 tanh(s / 50) (`attn_logit_softcapping`)",
        ),
    ],
)
def test_a_layer_is_checked_against_its_own_weights(file: str, name: str, said: str) -> None:
    """nanoGPT's CausalSelfAttention was called as a model of token ids and could not be
    checked at all; a vision transformer's encoder layer sees every patch on purpose."""
    report = check(load(file, name))
    assert report.ok and report.kind == "layer", str(report)
    assert said in notes(report) and "the reference uses the layer's own weights" in notes(report)
    assert "matches float64 reference attention layer" in str(report)


@needs_torch
@pytest.mark.parametrize("dtype", ["half", "bfloat16"])
def test_a_layer_in_half_precision_keeps_its_precision(dtype: str) -> None:
    layer = getattr(load("torch_layer_nanogpt.py", "manual"), dtype)()
    report = check(layer)
    assert report.ok and f"torch {'float16' if dtype == 'half' else dtype}" in str(report.backend)


@needs_torch
def test_gpt2_conv1d_weights_are_read_as_in_by_out() -> None:
    """The same layer with its buffer mended is right: the reference read the Conv1D maps
    the right way round, and the (output, weights) pair was taken for its output."""
    layer = load("torch_layer_gpt2_conv1d.py", "gpt2")
    assert check(layer).ids == ["causal-mask-off-by-one"]
    layer.bias = torch.tril(torch.ones_like(layer.bias))  # type: ignore[union-attr]
    assert check(layer).ok


def printed_and_expected(repro: str) -> tuple[list[float], list[float]]:
    """Run a layer's reproduction next to the corpus: the four numbers it prints, and the
    four its last line says are expected."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = [sys.executable, "-c", repro]
    proc = subprocess.run(run, capture_output=True, text=True, cwd=CORPUS, env=env, check=True)
    got = [float(x) for x in proc.stdout.split("[")[1].split("]")[0].split(",")]
    expected = [float(x) for x in repro.rsplit("[", 1)[1].rstrip("]").split(",")]
    assert len(got) == len(expected) == 4
    return got, expected


@needs_torch
def test_the_reproduction_prints_what_differs() -> None:
    """The lecture head's reproduction runs as printed and shows other numbers than the
    expected ones."""
    imp = "from torch_layer_lecture_head import head"
    report = check(load("torch_layer_lecture_head.py", "head"), name="head", import_line=imp)
    (finding,) = report.errors
    assert finding.id == "scale-wrong" and "32**-0.5" in finding.message
    got, expected = printed_and_expected(finding.repro)
    assert max(abs(a - b) for a, b in zip(got, expected, strict=True)) > 1e-3


@needs_torch
def test_a_layer_that_leaves_its_mask_to_the_model_is_handed_one() -> None:
    """Hugging Face's eager layers say `is_causal` and apply only the mask the model builds:
    alone they see the future, which is no bug of theirs. The check hands them the causal
    mask, and the reproductions build the same one."""
    layer = load("torch_layer_mask_from_model.py", "attn")
    report = check(layer)
    assert report.ok and "goes in through `attention_mask`" in notes(report), str(report)
    layer.scaling = 16**-0.5  # the model width, not the head size
    imp = "from torch_layer_mask_from_model import attn\nattn.scaling = 16**-0.5"
    (finding,) = check(layer, name="attn", import_line=imp).errors
    assert finding.id == "scale-wrong"
    assert "attention_mask=causal(x.shape[1])" in finding.repro
    got, expected = printed_and_expected(finding.repro)
    assert max(abs(a - b) for a, b in zip(got, expected, strict=True)) > 1e-3
    layer.scaling = 4**-0.5
    got, expected = printed_and_expected(finding.repro.replace("16**-0.5", "4**-0.5"))
    assert max(abs(a - b) for a, b in zip(got, expected, strict=True)) < 1e-3


@needs_torch
def test_a_norm_the_layer_holds_is_applied_when_the_layer_applies_it() -> None:
    """vit-pytorch's attention normalises x itself; a layer that holds a norm the block
    around it applies does not."""
    layer = load("torch_layer_prenorm.py", "attn")
    report = check(layer)
    assert report.ok and "x goes through `norm` (LayerNorm)" in notes(report), str(report)
    layer.norm.forward = lambda x: x  # held, not applied
    report = check(layer)
    assert report.ok and "x goes through" not in notes(report), str(report)


@needs_torch
@pytest.mark.parametrize("name", ["manual", "normed"])
def test_a_causal_flag_is_checked_on_as_well_as_off(name: str) -> None:
    """timm's `forward(x, attn_mask=None, is_causal=False)`: off, every patch sees every other;
    on, the same layer must be causal attention. `normed` has QK-norm, per head."""
    report = check(load("torch_layer_causal_flag.py", name))
    assert report.ok, str(report)
    checked = [c.name for c in report.checks if c.status == "pass"]
    assert "matches float64 reference attention layer (no mask)" in checked
    assert "matches float64 reference attention layer (causal via `is_causal`)" in checked


@needs_torch
@pytest.mark.parametrize("name", ["mha", "mha_batch_first", "causal"])
def test_multihead_attention_and_a_wrapper_around_it(name: str) -> None:
    """nn.MultiheadAttention takes x three times, as (n, batch, C) unless batch_first; a
    module whose only weights are one of them is that layer with its mask."""
    report = check(load("torch_layer_multihead.py", name))
    assert report.ok and report.kind == "layer", str(report)
    assert "in_proj_weight, " in notes(report)
    if name != "causal":  # the caller's arguments go to every call, as for a kernel
        report = check(load("torch_layer_multihead.py", name), args={"need_weights": False})
        assert report.ok and report.calls >= 10, str(report)
        bad = check(load("torch_layer_multihead.py", name), args={"bogus": 1})
        assert bad.verdict == "error" and "bogus" in str(bad.error)


@needs_torch
def test_a_tril_handed_to_multihead_attention_is_named() -> None:
    report = check(load("torch_layer_multihead.py", "causal_tril"))
    (finding,) = report.errors
    assert finding.id == "causal-mask-wrong-triangle"
    assert "reads a boolean attn_mask as True = may NOT attend" in finding.message


@needs_torch
@pytest.mark.parametrize(
    ("name", "shape"), [("turned", "(batch, n, C)"), ("as_given", "(n, batch, C)")]
)
def test_a_wrapper_takes_x_in_its_own_layout(name: str, shape: str) -> None:
    """Around a module that wants (n, batch, C), a wrapper may take x so, or as (batch, n, C)
    and turn it itself (PyTorch before batch_first): it is fed the layout in which its
    positions meet, not the module's by default (before, `turned` was a wrong output)."""
    report = check(load("torch_layer_turned.py", name))
    assert report.ok and report.kind == "layer", str(report)
    assert f"x of shape {shape}" in report.backend
    turned = "takes x as (batch, n, C) and turns it for `self_attn`" in notes(report)
    assert turned == (name == "turned")


@needs_torch
def test_a_block_with_its_own_norm_and_mlp_is_no_layer() -> None:
    """Only a thin wrapper counts: a transformer block computes more than its attention."""
    block = torch.nn.TransformerEncoderLayer(16, 4, dim_feedforward=32)  # type: ignore[union-attr]
    from selfattn.check.projections import find_projections

    assert find_projections(block) is None
    assert find_projections(block.self_attn) is not None


@needs_torch
def test_a_residual_is_read_from_the_output() -> None:
    """A layer that returns x + attention (the first half of a block) is checked as that."""
    layer = load("torch_layer_nanogpt.py", "manual")
    plain = layer.forward
    layer.forward = lambda x: x + plain(x)
    report = check(layer)
    assert report.ok and "adds x to its output" in notes(report), str(report)
    assert "adds x" not in notes(check(load("torch_layer_nanogpt.py", "manual")))


@needs_torch
def test_a_layer_rotating_by_itself_gets_its_angles_back() -> None:
    """The check holds a layer's own rotation at angle 0 and then puts it back as it was."""
    layer = load("torch_layer_rotary.py", "inner")
    before = [layer.rotary.cos.clone(), layer.rotary.sin.clone()]
    x = torch.randn(1, 8, 32)  # type: ignore[union-attr]
    out = layer(x)
    assert check(layer).ok
    assert torch.equal(layer.rotary.cos, before[0]) and torch.equal(layer.rotary.sin, before[1])  # type: ignore[union-attr]
    assert torch.equal(layer(x), out)  # type: ignore[union-attr]


@needs_torch
def test_a_layer_that_needs_more_than_x_says_how_to_go_on() -> None:
    """A layer that also wants what the check cannot make up (here the ids of the documents
    packed into one sequence): the error names the call and the two ways forward."""
    layer = load("torch_layer_nanogpt.py", "manual")
    plain = layer.forward
    layer.forward = lambda x, document_ids: plain(x)
    report = check(layer)
    assert report.verdict == "error"
    assert "(x, document_ids) could not be called with x of shape (1, 8, 12) float32 alone" in str(
        report.error
    )
    assert "--arg NAME=VALUE" in str(report.error)


@needs_torch
def test_a_fused_map_read_per_head_or_in_another_order() -> None:
    """GPT-NeoX and BLOOM store each head's q, k, v together; a layer that splits its map as
    k, q, v is right for weights trained that way. Either is said, never taken for a bug."""
    report = check(load("torch_layer_per_head_qkv.py", "attn"))
    assert report.ok and "`query_key_value` is read per head" in notes(report), str(report)
    layer = load("torch_layer_nanogpt.py", "manual")

    def keys_first(x: Any) -> Any:  # the same layer, splitting its map as k, q, v
        B, T, C = x.shape
        k, q, v = (t.view(B, T, 3, C // 3).transpose(1, 2) for t in layer.c_attn(x).split(C, 2))
        y = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)  # type: ignore[union-attr]
        return layer.c_proj(y.transpose(1, 2).reshape(B, T, C))

    layer.forward = keys_first
    report = check(layer)
    assert report.ok and "parts are used as k, q, v" in notes(report), str(report)


@needs_torch
def test_grouped_query_attention_and_how_its_heads_are_shared() -> None:
    """k and v with fewer heads than q, as LLaMA 2 and Mistral have them; repeat in place of
    repeat_interleave pairs the heads the other way, which is said, not called a bug."""
    report = check(load("torch_layer_grouped_query.py", "attn"))
    assert report.ok and "4 heads of size 4, sharing 2 k, v heads" in notes(report), str(report)
    assert "repeat, not repeat_interleave" not in notes(report)
    report = check(load("torch_layer_grouped_query.py", "tiled"))
    assert report.ok and "repeat, not repeat_interleave" in notes(report), str(report)


@needs_torch
def test_a_module_without_known_projections_is_refused_as_a_layer() -> None:
    class Mixer(torch.nn.Module):  # type: ignore[name-defined, misc]
        def __init__(self) -> None:
            super().__init__()
            self.mix = torch.nn.Linear(4, 4)  # type: ignore[union-attr]

        def forward(self, x: Any) -> Any:
            return self.mix(x)

    report = check(Mixer(), kind="layer")
    assert report.verdict == "error"
    assert "holds no q, k, v projections under a known name" in str(report.error)
