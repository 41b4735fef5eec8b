"""How `selfattn check` calls a kernel: layouts probed, said and forced; q, k, v and extra arguments
bound by name; outputs of JAX, MLX-like and tinygrad kernels; textbook 2-D code; the call named
in the report; and the time it takes."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest

from selfattn.check import check

from .published import CORPUS, cli, load, needs_jax, needs_torch, notes, softmax

# -- layouts: probed, said, and forced with --layout -------------------------------------


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
def test_layout_is_probed_and_said(file: str, name: str, layout: str) -> None:
    from selfattn.check.frameworks import LAYOUTS

    report = check(load(file, name))
    assert report.verdict != "error", str(report)
    assert f"layout {layout}: each (n, d) input is passed as {LAYOUTS[layout]}" in notes(report)


@needs_torch
def test_layout_can_be_forced() -> None:
    fn = load("torch_flash_ref_bnhd.py", "attention_ref")
    assert check(fn, layout="bnhd").ok
    assert not check(fn, layout="bhnd").ok  # each position its own head: it can't be right
    report = cli(f"{CORPUS / 'torch_einsum_bhnd.py'}:attend", "--layout", "bhnd")
    assert report["verdict"] == "ok" and any("layout bhnd" in n for n in report["notes"])
    with pytest.raises(ValueError, match="layout"):
        check(fn, layout="nhd")


def test_layouts_round_trip() -> None:
    from selfattn.check.frameworks import LAYOUTS, from_layout, to_layout

    x = np.random.default_rng(0).standard_normal((2, 3, 5, 4))
    for layout in LAYOUTS:
        assert np.array_equal(from_layout(to_layout(x, layout), layout, x.shape), x)
        assert np.array_equal(from_layout(to_layout(x[0, 0], layout), layout, (5, 4)), x[0, 0])
    # Hugging Face's eager attention answers (b, n, h, d) to (b, h, n, d) input
    assert np.array_equal(from_layout(x.swapaxes(1, 2), "bhnd", x.shape), x)


# -- parameters bound by name; extra arguments -------------------------------------------


@needs_torch
def test_values_keys_query_bound_by_name() -> None:
    report = check(load("torch_values_keys_query.py", "attention"))
    assert report.ok, str(report)
    assert "bound by name to `query`, `keys`, `values`" in notes(report)


@needs_torch
def test_extra_required_arguments() -> None:
    fn = load("torch_hf_eager_bf16.py", "eager_attention_forward")
    report = check(fn, args={"module": None})
    assert report.ok, str(report)
    assert "`scaling` passed as 1/sqrt(d)" in notes(report)
    fixed = check(fn, args={"module": None, "scaling": 0.125})  # the caller's own scale
    assert fixed.ok and "softmax(0.125 q k^T) v" in notes(fixed), str(fixed)
    report = cli(
        f"{CORPUS / 'torch_hf_eager_bf16.py'}:eager_attention_forward", "--arg", "module=none"
    )
    assert report["verdict"] == "ok"


@needs_torch
def test_module_first_function_gets_a_stand_in() -> None:
    # `module` comes before q, k, v: a stand-in answers what the function reads of it
    report = check(load("torch_hf_eager_module.py", "eager_attention_forward"))
    assert report.ok, str(report)
    assert "module=SimpleNamespace(num_key_value_groups=1, training=False)" in notes(report)
    assert (
        "from types import SimpleNamespace"
        in check(load("buggy_hf_eager_module_axis.py", "eager_attention_forward")).errors[0].repro
    )


def test_an_argument_after_q_k_v_is_not_made_up() -> None:
    def attention(q, k, v, table):
        return table[q]

    missing = check(attention)
    assert missing.verdict == "error" and "--arg table=" in (missing.error or "")


def test_parse_args() -> None:
    from selfattn.check.cli import parse_args

    parsed = parse_args(["scaling=0.125", "module=none", "causal=true", "name=abc", "n=(1, 2)"])
    assert parsed == {"scaling": 0.125, "module": None, "causal": True, "name": "abc", "n": (1, 2)}
    with pytest.raises(ValueError):
        parse_args(["scaling"])


# -- JAX, MLX and tinygrad outputs --------------------------------------------------------


def test_thread_bound_output_is_read_on_its_thread() -> None:
    report = check(load("mlxlike_correct.py", "attention"))
    assert report.ok, str(report)


def test_array_protocol_output() -> None:
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

    assert check(attention, in_process=True).ok  # in this process, to see its threads
    assert seen and threading.get_ident() not in seen


@needs_jax
def test_jax_kernels() -> None:
    import jax

    # XLA compiles every new shape: seconds per call on a busy CPU, so generous limits here.
    report = check(load("jax_dpa.py", "attention"), timeout=30, budget=300)
    assert report.ok and report.backend.startswith("jax"), str(report)
    assert "layout bnhd" in notes(report)
    bad = check(load("jax_mask_multiplied.py", "attention"), timeout=30, budget=300)
    assert [f.id for f in bad.errors] == ["causal-mask-multiplied"], str(bad)
    assert isinstance(jax.numpy.zeros(1), jax.Array)


# -- textbook 2-D code -------------------------------------------------------------------


@needs_torch
def test_textbook_2d_kernel_is_a_warning() -> None:
    report = check(load("torch_2d_dot_T.py", "attention"))
    assert report.ok and report.ids[0] == "batched-input-unsupported", str(report)
    assert "k.T" in report.findings[0].message


# -- the report names the call without type annotations --------------------------------


def annotated(q: np.ndarray, k: np.ndarray, v: np.ndarray, *, causal: bool = False) -> np.ndarray:
    s = q @ k.T / np.sqrt(q.shape[-1])
    if causal:
        s = np.where(np.tril(np.ones(s.shape, dtype=bool)), s, -np.inf)
    return softmax(s) @ v


def test_the_call_is_named_without_annotations() -> None:
    """jax.nn.dot_product_attention's annotations made its one line six."""
    assert check(annotated).called_as == "annotated(q, k, v, *, causal=False)"


# -- time and calls -------------------------------------------------------------------------


@needs_torch
def test_check_says_what_it_took() -> None:
    """Each check reports its wall time and its calls (how long it takes is printed by
    `python -m bench.check_speed`, part of `make bench`: a timed test fails under load)."""
    for file, name in (
        ("torch_correct_manual.py", "attention"),
        ("torch_two_masks.py", "attention"),
    ):
        report = check(load(file, name))
        assert report.verdict != "error", str(report)
        assert report.seconds > 0 and report.calls > 0
