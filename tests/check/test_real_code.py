"""`selfattn check` on attention as published code writes it (issue 14), one test per class.

Each test names the class of the issue it covers; each failed before the change that added it.
The corpus cases themselves also run through the API and the CLI in test_check.py. Modules
that the change added are imported inside the tests that use them, so that this file can be
run against the code as it was before.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from selfattn.check import check

CORPUS = Path(__file__).parent / "corpus"
ROOT = Path(__file__).resolve().parents[2]
torch = pytest.importorskip("torch") if importlib.util.find_spec("torch") else None  # optional
needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")
needs_jax = pytest.mark.skipif(
    importlib.util.find_spec("jax") is None, reason="jax is not installed"
)


def load(file: str, name: str) -> Any:
    spec = importlib.util.spec_from_file_location(f"real_{Path(file).stem}", CORPUS / file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    target: Any = module
    for part in name.split("."):
        target = getattr(target, part)
    return target


def cli(*args: str) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-m", "selfattn.check.cli", *args, "--json"],
        capture_output=True,
        text=True,
        timeout=90,
        env=env,
        check=False,
    )
    report = json.loads(proc.stdout)
    assert proc.returncode == report["exit_status"]
    return report


def notes(report: Any) -> str:
    return " | ".join(report.notes)


# -- 1. half precision: tolerances follow the kernel's precision ---------------------------


@needs_torch
@pytest.mark.parametrize(
    ("file", "name", "args"),
    [
        ("torch_whisper_fp16.py", "attn.qkv_attention", None),
        ("torch_hf_eager_bf16.py", "eager_attention_forward", {"module": None}),
    ],
)
def test_1_additive_mask_in_half_precision_is_no_leak(file: str, name: str, args: Any) -> None:
    """torch adds a boolean mask as +1 on every score: in fp16/bf16 that moves the output a
    little, which must not read as "boolean block" and then as a leak."""
    report = check(load(file, name), args=args)
    assert report.ok and "causal-leak" not in report.ids, str(report)
    assert "additive" in notes(report)


@needs_torch
def test_1_bool_mask_added_in_float16() -> None:
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


# -- 2. a built-in causal mask must not hide a wrong scale ---------------------------------


@needs_torch
def test_2_builtin_causal_mask_with_wrong_scale() -> None:
    report = check(load("torch_nanogpt_head_scale_C.py", "head"))
    assert [f.id for f in report.errors] == ["scale-wrong"], str(report)
    assert "masks the future by itself" in notes(report)
    assert "5.657" in report.errors[0].message  # sqrt(32): the model width, not the head size
    correct = check(load("torch_nanogpt_head.py", "head"))
    assert correct.ok and "masks the future by itself" in notes(correct)


def test_2_builtin_causal_mask_with_wrong_scale_numpy() -> None:
    def attention(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
        n = q.shape[0]
        scores = q @ k.T * 32**-0.5
        scores = np.where(np.tril(np.ones((n, n), dtype=bool)), scores, -np.inf)
        w = np.exp(scores - scores.max(-1, keepdims=True))
        return w / w.sum(-1, keepdims=True) @ v

    report = check(attention)
    assert [f.id for f in report.errors] == ["scale-wrong"], str(report)


# -- 3. layouts: probed, said, and forced with --layout -------------------------------------


@needs_torch
@pytest.mark.parametrize(
    ("file", "name", "layout"),
    [
        ("torch_flash_ref_bnhd.py", "attention_ref", "bnhd"),
        ("torch_einsum_bhnd.py", "attend", "bhnd"),
        ("torch_bmm_by_d.py", "attention", "bnd"),
        ("torch_module_mask.py", "sdpa", "bhnd"),
        ("torch_whisper_fp16.py", "attn.qkv_attention", "bnd"),
    ],
)
def test_3_layout_is_probed_and_said(file: str, name: str, layout: str) -> None:
    from selfattn.check.frameworks import LAYOUTS

    report = check(load(file, name))
    assert report.verdict != "error", str(report)
    assert f"layout {layout}: each (n, d) input is passed as {LAYOUTS[layout]}" in notes(report)


@needs_torch
def test_3_layout_can_be_forced() -> None:
    fn = load("torch_flash_ref_bnhd.py", "attention_ref")
    assert check(fn, layout="bnhd").ok
    assert not check(fn, layout="bhnd").ok  # each position its own head: it can't be right
    report = cli(f"{CORPUS / 'torch_einsum_bhnd.py'}:attend", "--layout", "bhnd")
    assert report["verdict"] == "ok" and any("layout bhnd" in n for n in report["notes"])
    with pytest.raises(ValueError, match="layout"):
        check(fn, layout="nhd")


def test_3_layouts_round_trip() -> None:
    from selfattn.check.frameworks import LAYOUTS, from_layout, to_layout

    x = np.random.default_rng(0).standard_normal((2, 3, 5, 4))
    for layout in LAYOUTS:
        assert np.array_equal(from_layout(to_layout(x, layout), layout, x.shape), x)
        assert np.array_equal(from_layout(to_layout(x[0, 0], layout), layout, (5, 4)), x[0, 0])
    # Hugging Face's eager attention answers (b, n, h, d) to (b, h, n, d) input
    assert np.array_equal(from_layout(x.swapaxes(1, 2), "bhnd", x.shape), x)


# -- 4. parameters bound by name; extra arguments -------------------------------------------


@needs_torch
def test_4_values_keys_query_bound_by_name() -> None:
    report = check(load("torch_values_keys_query.py", "attention"))
    assert report.ok, str(report)
    assert "bound by name to `query`, `keys`, `values`" in notes(report)


@needs_torch
def test_4_extra_required_arguments() -> None:
    fn = load("torch_hf_eager_bf16.py", "eager_attention_forward")
    missing = check(fn)
    assert missing.verdict == "error" and "--arg module=" in (missing.error or "")
    report = check(fn, args={"module": None})
    assert report.ok, str(report)
    assert "`scaling` passed as 1/sqrt(d)" in notes(report)
    fixed = check(fn, args={"module": None, "scaling": 0.125})  # the caller's own scale
    assert fixed.ok and "softmax(0.125 q k^T) v" in notes(fixed), str(fixed)
    report = cli(
        f"{CORPUS / 'torch_hf_eager_bf16.py'}:eager_attention_forward", "--arg", "module=none"
    )
    assert report["verdict"] == "ok"


def test_4_parse_args() -> None:
    from selfattn.check.cli import parse_args

    parsed = parse_args(["scaling=0.125", "module=none", "causal=true", "name=abc", "n=(1, 2)"])
    assert parsed == {"scaling": 0.125, "module": None, "causal": True, "name": "abc", "n": (1, 2)}
    with pytest.raises(ValueError):
        parse_args(["scaling"])


# -- 5. every mask parameter is driven; key-padding masks -----------------------------------


@needs_torch
def test_5_second_mask_argument_is_driven() -> None:
    report = check(load("torch_two_masks.py", "attention"))
    assert [f.id for f in report.errors] == ["causal-mask-multiplied"], str(report)
    assert "`attn_mask`" in report.errors[0].message
    assert "carried by `mask`" in notes(report)


@needs_torch
def test_5_key_padding_mask_is_checked_not_refused() -> None:
    report = check(load("torch_key_padding.py", "attention"))
    assert report.ok, str(report)
    assert "key-padding mask" in notes(report) and "cannot express causality" in notes(report)
    assert any(c.name.startswith("padded keys") and c.status == "pass" for c in report.checks)
    both = check(load("torch_flash_ref_bnhd.py", "attention_ref"))
    assert both.ok and "key-padding mask" in notes(both), str(both)
    bad = check(load("torch_padding_multiplied.py", "attention_ref"))
    assert [f.id for f in bad.errors] == ["padding-mask-leak"], str(bad)
    assert "key_padding_mask=mask)" in bad.errors[0].repro  # the reproduction passes it


# -- 6. JAX, MLX and tinygrad outputs --------------------------------------------------------


def test_6_thread_bound_output_is_read_on_its_thread() -> None:
    report = check(load("mlxlike_correct.py", "attention"))
    assert report.ok, str(report)


def test_6_array_protocol_output() -> None:
    class Wrapped:
        def __init__(self, data: np.ndarray) -> None:
            self.data = data

        def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
            return np.asarray(self.data, dtype=dtype)

    seen: list[int] = []

    def attention(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> Wrapped:
        seen.append(threading.get_ident())
        s = q @ k.T / np.sqrt(q.shape[-1])
        w = np.exp(s - s.max(-1, keepdims=True))
        return Wrapped(w / w.sum(-1, keepdims=True) @ v)

    assert check(attention).ok
    assert threading.get_ident() not in seen


@needs_jax
def test_6_jax_kernels() -> None:
    import jax

    # XLA compiles every new shape: seconds per call on a busy CPU, so generous limits here.
    report = check(load("jax_dpa.py", "attention"), timeout=30, budget=300)
    assert report.ok and report.backend.startswith("jax"), str(report)
    assert "layout bnhd" in notes(report)
    bad = check(load("jax_mask_multiplied.py", "attention"), timeout=30, budget=300)
    assert [f.id for f in bad.errors] == ["causal-mask-multiplied"], str(bad)
    assert isinstance(jax.numpy.zeros(1), jax.Array)


# -- 7. textbook 2-D code -------------------------------------------------------------------


@needs_torch
def test_7_textbook_2d_kernel_is_a_warning() -> None:
    report = check(load("torch_2d_dot_T.py", "attention"))
    assert report.ok and report.ids[0] == "batched-input-unsupported", str(report)
    assert "k.T" in report.findings[0].message


# -- 8. renormalised multiplicative masks ---------------------------------------------------


@needs_torch
def test_8_renormalised_mask_is_explained() -> None:
    report = check(load("torch_renorm_mask.py", "attention"))
    assert [f.id for f in report.errors] == ["nonfinite-extreme"], str(report)
    message = report.errors[0].message
    assert "renormalised" in message and "0/0" in message and "masked future" in message


# -- 9. half precision inside a wide kernel -------------------------------------------------


def test_9_rounding_inside_is_read_from_the_values() -> None:
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


def _softmax(s: np.ndarray) -> np.ndarray:
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def weights_in_half(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Right, with the weights stored in float16 and the product with v in float64."""
    w = _softmax(q @ k.T / np.sqrt(q.shape[-1])).astype(np.float16)
    return w.astype(np.float64) @ v


def weights_sum_over_one(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Wrong by 0.02 %: the weights sum to 1.0002, an error of float16's size in float64."""
    return 1.0002 * _softmax(q @ k.T / np.sqrt(q.shape[-1])) @ v


def test_9_weights_rounded_to_half_are_read_with_the_identity() -> None:
    report = check(weights_in_half)
    assert report.ok, str(report)
    assert "float16 inside" in notes(report), notes(report)


def test_9_an_error_of_half_size_in_float64_is_still_named() -> None:
    report = check(weights_sum_over_one)
    assert report.ids == ["weights-not-normalized"], str(report)
    assert "1.0002 .. 1.0002" in report.errors[0].message  # not "1 .. 1"


@needs_torch
def test_9_gpt2_style_half_module_is_checked_as_always_causal() -> None:
    report = check(load("torch_gpt2_half_inside.py", "attn"))
    assert report.ok, str(report)
    said = notes(report)
    assert "float16 inside" in said and "masks the future by itself" in said, said
    assert any(c.name.startswith("no future leak") and c.status == "pass" for c in report.checks)


@needs_torch
def test_9_mask_multiplied_in_half_is_the_leak_not_the_sums() -> None:
    report = check(load("torch_gpt2_half_mask_multiplied.py", "attn"))
    assert report.ids == ["causal-mask-multiplied"], str(report)
    assert "float16 to tell from 0" in report.errors[0].message


# -- 10. a method of a module, causal by itself, with a padding mask ------------------------


@needs_torch
def test_10_method_of_a_module_in_training_runs_without_dropout() -> None:
    method = load("torch_gpt2_eager_attn.py", "gpt2._attn")
    assert method.__self__.training
    report = check(method)
    # switched to eval mode for the check, and back to training after it (issue 32)
    assert method.__self__.training and "eval mode" in notes(report), notes(report)
    assert report.ok, str(report)


@needs_torch
def test_10_mask_argument_of_a_causal_kernel_is_checked_as_padding() -> None:
    """A kernel causal by itself with a mask argument is not a flag stuck on: its mask adds
    padding, a `head_mask` is no mask over positions, and a mask it drops is named."""
    report = check(load("torch_gpt2_eager_attn.py", "gpt2._attn"))
    said = notes(report)
    assert "masks the future by itself" in said and "head_mask" not in said, said
    assert any(c.name.startswith("padded keys (`attention_mask`)") for c in report.checks)
    dropped = check(load("torch_gpt2_eager_attn.py", "gpt2_refactored._attn"))
    assert dropped.ids == ["padding-mask-leak"], str(dropped)
    assert "gpt2_refactored.eval()" in dropped.errors[0].repro


# -- 11. which parameters are masks ----------------------------------------------------------


def test_11_mask_names() -> None:
    from selfattn.check.probe import is_mask_name

    masks = ("mask", "attn_mask", "key_padding_mask", "attention_mask", "attn_bias", "bias")
    others = ("drop_mask", "dropout_mask", "query_padding_mask", "head_mask", "scale", "p")
    assert [n for n in masks if not is_mask_name(n)] == []
    assert [n for n in others if is_mask_name(n)] == []


@needs_torch
def test_11_causal_mask_through_attn_bias_and_a_dropout_mask() -> None:
    report = check(load("torch_bias_and_drop_mask.py", "ref_attention"))
    assert report.ok, str(report)
    passed = {c.name for c in report.checks if c.status == "pass"}
    assert "causal mask applied as in the reference" in passed, str(report)
    assert "bias argument `attn_bias`: assumed additive" in notes(report), notes(report)


# -- 12. dropout ----------------------------------------------------------------------------


@needs_torch
def test_12_dropout_probability_is_passed_as_zero_unless_chosen() -> None:
    report = check(load("torch_dropout_p_argument.py", "attention"))
    assert report.ok and "`dropout_p` passed as 0.0" in notes(report), str(report)
    assert "dropout_p=0.0" in report.findings[0].repro  # the reproduction runs it the same way
    chosen = cli(
        str(CORPUS / "torch_dropout_p_argument.py") + ":attention", "--arg", "dropout_p=0.3"
    )
    assert [f["id"] for f in chosen["findings"] if f["severity"] == "error"] == ["random-output"]
    assert "dropout_p=0.3" in " ".join(chosen["notes"])


@needs_torch
def test_12_random_output_stops_before_the_mask_is_probed() -> None:
    """Noise would make the mask's convention and every comparison after it a guess."""
    report = check(load("torch_dropout_always_on.py", "attention"))
    assert report.ids == ["random-output"], str(report)
    assert not any("mask argument" in n for n in report.notes), notes(report)
    assert "a = attention(q, k, v)" in report.errors[0].repro


def test_12_a_closed_pipe_ends_the_report_quietly() -> None:
    """`selfattn check ... | head -3` must not end in a BrokenPipeError traceback."""
    target = str(CORPUS / "correct_numpy_basic.py") + ":attention"
    cmd = [sys.executable, "-m", "selfattn.check.cli", target]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.close()  # the reader is gone before the report is written
        err = proc.stderr.read().decode()
        assert proc.wait(timeout=90) == 0, err
    assert "Traceback" not in err, err


# -- 13. the report names the call without type annotations --------------------------------


def annotated(q: np.ndarray, k: np.ndarray, v: np.ndarray, *, causal: bool = False) -> np.ndarray:
    s = q @ k.T / np.sqrt(q.shape[-1])
    if causal:
        s = np.where(np.tril(np.ones(s.shape, dtype=bool)), s, -np.inf)
    return _softmax(s) @ v


def test_13_the_call_is_named_without_annotations() -> None:
    """jax.nn.dot_product_attention's annotations made its one line six."""
    assert check(annotated).called_as == "annotated(q, k, v, *, causal=False)"


# -- 14. logit soft-capping ----------------------------------------------------------------


@needs_torch
@pytest.mark.parametrize(
    ("name", "args", "said"),
    [
        ("attention", {"softcap": 5.0}, "the `softcap` passed"),
        ("attention", {"softcap": 5.0, "scaling": 0.25}, "the `scaling` and `softcap` passed"),
        ("attention_capped", None, "the kernel's defaults"),
    ],
)
def test_14_softcapped_scores_are_the_reference(name: str, args: Any, said: str) -> None:
    """Gemma 2's cap is right, not a wrong output; the reference takes it from the call."""
    report = check(load("torch_softcap.py", name), args=args)
    assert report.ok, str(report)
    assert f"the reference follows {said}" in notes(report) and "tanh" in notes(report)


@needs_torch
def test_14_without_its_cap_the_kernel_is_plain_attention() -> None:
    report = check(load("torch_softcap.py", "attention"))
    assert report.ok and "tanh" not in notes(report), str(report)


# -- 15. a layer with its own projections, called on hidden states ---------------------------


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
def test_15_a_layer_is_checked_against_its_own_weights(file: str, name: str, said: str) -> None:
    """nanoGPT's CausalSelfAttention was called as a model of token ids and could not be
    checked at all; a vision transformer's encoder layer sees every patch on purpose."""
    report = check(load(file, name))
    assert report.ok and report.kind == "layer", str(report)
    assert said in notes(report) and "the reference uses the layer's own weights" in notes(report)
    assert "matches float64 reference attention layer" in str(report)


@needs_torch
@pytest.mark.parametrize("dtype", ["half", "bfloat16"])
def test_15_a_layer_in_half_precision_keeps_its_precision(dtype: str) -> None:
    layer = getattr(load("torch_layer_nanogpt.py", "manual"), dtype)()
    report = check(layer)
    assert report.ok and f"torch {'float16' if dtype == 'half' else dtype}" in str(report.backend)


@needs_torch
def test_15_gpt2_conv1d_weights_are_read_as_in_by_out() -> None:
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
def test_15_the_reproduction_prints_what_differs() -> None:
    """The lecture head's reproduction runs as printed and shows other numbers than the
    expected ones."""
    imp = "from torch_layer_lecture_head import head"
    report = check(load("torch_layer_lecture_head.py", "head"), name="head", import_line=imp)
    (finding,) = report.errors
    assert finding.id == "scale-wrong" and "32**-0.5" in finding.message
    got, expected = printed_and_expected(finding.repro)
    assert max(abs(a - b) for a, b in zip(got, expected, strict=True)) > 1e-3


@needs_torch
def test_15_a_layer_that_leaves_its_mask_to_the_model_is_handed_one() -> None:
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
def test_15_a_norm_the_layer_holds_is_applied_when_the_layer_applies_it() -> None:
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
def test_15_a_causal_flag_is_checked_on_as_well_as_off(name: str) -> None:
    """timm's `forward(x, attn_mask=None, is_causal=False)`: off, every patch sees every other;
    on, the same layer must be causal attention. `normed` has QK-norm, per head."""
    report = check(load("torch_layer_causal_flag.py", name))
    assert report.ok, str(report)
    checked = [c.name for c in report.checks if c.status == "pass"]
    assert "matches float64 reference attention layer (no mask)" in checked
    assert "matches float64 reference attention layer (causal via `is_causal`)" in checked


@needs_torch
@pytest.mark.parametrize("name", ["mha", "mha_batch_first", "causal"])
def test_15_multihead_attention_and_a_wrapper_around_it(name: str) -> None:
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
def test_15_a_tril_handed_to_multihead_attention_is_named() -> None:
    report = check(load("torch_layer_multihead.py", "causal_tril"))
    (finding,) = report.errors
    assert finding.id == "causal-mask-wrong-triangle"
    assert "reads a boolean attn_mask as True = may NOT attend" in finding.message


@needs_torch
@pytest.mark.parametrize(
    ("name", "shape"), [("turned", "(batch, n, C)"), ("as_given", "(n, batch, C)")]
)
def test_15_a_wrapper_takes_x_in_its_own_layout(name: str, shape: str) -> None:
    """Around a module that wants (n, batch, C), a wrapper may take x so, or as (batch, n, C)
    and turn it itself (PyTorch before batch_first): it is fed the layout in which its
    positions meet, not the module's by default (before, `turned` was a wrong output)."""
    report = check(load("torch_layer_turned.py", name))
    assert report.ok and report.kind == "layer", str(report)
    assert f"x of shape {shape}" in report.backend
    turned = "takes x as (batch, n, C) and turns it for `self_attn`" in notes(report)
    assert turned == (name == "turned")


@needs_torch
def test_15_a_block_with_its_own_norm_and_mlp_is_no_layer() -> None:
    """Only a thin wrapper counts: a transformer block computes more than its attention."""
    block = torch.nn.TransformerEncoderLayer(16, 4, dim_feedforward=32)  # type: ignore[union-attr]
    from selfattn.check.projections import find_projections

    assert find_projections(block) is None
    assert find_projections(block.self_attn) is not None


@needs_torch
def test_15_a_residual_is_read_from_the_output() -> None:
    """A layer that returns x + attention (the first half of a block) is checked as that."""
    layer = load("torch_layer_nanogpt.py", "manual")
    plain = layer.forward
    layer.forward = lambda x: x + plain(x)
    report = check(layer)
    assert report.ok and "adds x to its output" in notes(report), str(report)
    assert "adds x" not in notes(check(load("torch_layer_nanogpt.py", "manual")))


@needs_torch
def test_15_a_layer_rotating_by_itself_gets_its_angles_back() -> None:
    """The check holds a layer's own rotation at angle 0 and then puts it back as it was."""
    layer = load("torch_layer_rotary.py", "inner")
    before = [layer.rotary.cos.clone(), layer.rotary.sin.clone()]
    x = torch.randn(1, 8, 32)  # type: ignore[union-attr]
    out = layer(x)
    assert check(layer).ok
    assert torch.equal(layer.rotary.cos, before[0]) and torch.equal(layer.rotary.sin, before[1])  # type: ignore[union-attr]
    assert torch.equal(layer(x), out)  # type: ignore[union-attr]


@needs_torch
def test_15_a_layer_that_needs_more_than_x_says_how_to_go_on() -> None:
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
def test_15_a_fused_map_read_per_head_or_in_another_order() -> None:
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
def test_15_grouped_query_attention_and_how_its_heads_are_shared() -> None:
    """k and v with fewer heads than q, as LLaMA 2 and Mistral have them; repeat in place of
    repeat_interleave pairs the heads the other way, which is said, not called a bug."""
    report = check(load("torch_layer_grouped_query.py", "attn"))
    assert report.ok and "4 heads of size 4, sharing 2 k, v heads" in notes(report), str(report)
    assert "repeat, not repeat_interleave" not in notes(report)
    report = check(load("torch_layer_grouped_query.py", "tiled"))
    assert report.ok and "repeat, not repeat_interleave" in notes(report), str(report)


@needs_torch
def test_15_a_module_without_known_projections_is_refused_as_a_layer() -> None:
    class Mixer(torch.nn.Module):  # type: ignore[name-defined, misc]
        def __init__(self) -> None:
            super().__init__()
            self.mix = torch.nn.Linear(4, 4)  # type: ignore[union-attr]

        def forward(self, x: Any) -> Any:
            return self.mix(x)

    report = check(Mixer(), kind="layer")
    assert report.verdict == "error"
    assert "holds no q, k, v projections under a known name" in str(report.error)


# -- speed ----------------------------------------------------------------------------------


@needs_torch
def test_check_stays_under_a_second_per_torch_kernel() -> None:
    """The issue's budget: under 1 s per kernel on CPU, the median well under it."""
    times = []
    for file, name in (
        ("torch_correct_manual.py", "attention"),
        ("torch_einsum_bhnd.py", "attend"),
        ("torch_two_masks.py", "attention"),
        ("torch_flash_ref_bnhd.py", "attention_ref"),
    ):
        report = check(load(file, name))
        times.append(report.seconds)
    assert max(times) < 2.0 and float(np.median(times)) < 1.0, times  # slack: shared CPU
