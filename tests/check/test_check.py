"""`selfattn check` against its corpus: each bug named, no false alarm, hostile targets contained.

Every corpus file goes through the Python API, its verdict read from the report and from the
JSON the CLI prints; the CLI itself (`python -m selfattn.check.cli`: a child interpreter, exit
status, stdout) runs on a handful of files that stand for the rest, and on the files the API
cannot be handed.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from selfattn.attention import attention as toy_attention
from selfattn.check import BUDGET, SPECS, TIMEOUT, check
from selfattn.check import cli as check_cli
from selfattn.check.findings import causal_bugs, id_table
from selfattn.check.reference import CAUSAL, CORRECT, FLOAT16, FLOAT32, agree

CORPUS = Path(__file__).parent / "corpus"
ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "README.md"  # its `selfattn check` section
HAS_TORCH = importlib.util.find_spec("torch") is not None
HAS_JAX = importlib.util.find_spec("jax") is not None
HAS_FLAX = HAS_JAX and importlib.util.find_spec("flax") is not None
HAS_KERAS = importlib.util.find_spec("keras") is not None  # run on torch: `KERAS_BACKEND`


def _tinygrad_runs() -> bool:
    """tinygrad installs anywhere but needs a compiler (clang) for its CPU device."""
    if importlib.util.find_spec("tinygrad") is None:
        return False
    probe = "from tinygrad import Device, Tensor\nassert Device.DEFAULT != 'PYTHON'\n"
    probe += "Tensor([1]).numpy()"
    return subprocess.run([sys.executable, "-c", probe], capture_output=True).returncode == 0


HAS_TRITON = importlib.util.find_spec("triton") is not None  # pip install 'selfattn[triton]'
FRAMEWORKS = {
    "torch_": HAS_TORCH,
    "jax_": HAS_JAX,
    "jax_linen_": HAS_FLAX,
    "tinygrad_": None,  # None: asked when needed
    "keras_": HAS_KERAS and HAS_TORCH,
    "triton_": HAS_TRITON and HAS_TORCH,
    "mlx_": importlib.util.find_spec("mlx") is not None and HAS_TORCH,  # pip install 'mlx[cpu]'
}

# file -> (NAME, error ids it must be named with, exit status). Warnings are checked apart.
CASES: dict[str, tuple[str, set[str], int]] = {
    # correct kernels, in different styles: no error may be reported
    "correct_numpy_basic.py": ("attention", set(), 0),
    "correct_float32_fill.py": ("attention", set(), 0),
    "correct_online_softmax.py": ("flash_attention", set(), 0),
    "correct_quarter_scale.py": ("attention", set(), 0),
    "correct_additive_mask.py": ("sdpa", set(), 0),
    "correct_block_mask.py": ("attend", set(), 0),
    "correct_loops.py": ("causal_attention", set(), 0),
    "correct_qknorm.py": ("qk_norm_attention", set(), 0),
    "correct_online_tiny_tiles.py": ("attention", set(), 0),
    "correct_split_kv_lse.py": ("attention", set(), 0),
    "correct_softmax_one_more.py": ("attention", set(), 0),
    # buggy kernels: each named with the right id
    "buggy_mask_multiply.py": ("attention", {"causal-mask-multiplied"}, 1),
    "buggy_mask_arg_multiply.py": ("attention", {"causal-mask-multiplied"}, 1),
    "buggy_fill_tiny.py": ("attention", {"causal-mask-finite-fill"}, 1),
    "buggy_fill_finite.py": ("attention", {"causal-mask-finite-fill"}, 1),
    "buggy_mask_after_softmax.py": ("attention", {"causal-mask-after-softmax"}, 1),
    "buggy_wrong_triangle.py": ("attention", {"causal-mask-wrong-triangle"}, 1),
    "buggy_sees_next.py": ("attention", {"causal-mask-off-by-one"}, 1),
    "buggy_no_diagonal.py": ("attention", {"causal-mask-off-by-one"}, 1),
    "buggy_flag_ignored.py": ("attention", {"causal-flag-ignored"}, 1),
    "buggy_mask_ignored.py": ("attention", {"causal-flag-ignored"}, 1),
    # a query-row mask with effect only under another option: no way to ask for causality
    "correct_query_mask_switched.py": ("attention", set(), 0),
    "buggy_scale_missing.py": ("attention", {"scale-missing"}, 1),
    "buggy_scale_by_d.py": ("attention", {"scale-by-d"}, 1),
    "buggy_scale_inverted.py": ("attention", {"scale-inverted"}, 1),
    "buggy_scale_after_softmax.py": ("attention", {"scale-after-softmax"}, 1),
    "buggy_scale_hardcoded.py": ("attention", {"scale-wrong"}, 1),
    "buggy_softmax_axis.py": ("attention", {"softmax-wrong-axis"}, 1),
    "buggy_key_not_transposed.py": ("attention", {"key-transpose"}, 1),
    "buggy_scores_transposed.py": ("attention", {"key-transpose"}, 1),
    # exp without a denominator also overflows: both are true and both are said
    "buggy_not_normalized.py": ("attention", {"weights-not-normalized", "nonfinite-extreme"}, 1),
    "buggy_sigmoid.py": ("attention", {"weights-not-normalized"}, 1),
    "buggy_overflow.py": ("attention", {"nonfinite-extreme"}, 1),
    "buggy_qknorm_no_eps.py": ("attention", {"nonfinite-extreme"}, 1),
    # tiled kernels: an online softmax streaming the keys, or splits merged
    "buggy_online_no_rescale.py": ("flash_forward", {"online-softmax-no-rescale"}, 1),
    "buggy_online_lazy_rescale.py": ("attention", {"online-softmax-no-rescale"}, 1),
    "buggy_online_big_tiles.py": ("attention", {"online-softmax-no-rescale"}, 1),
    "buggy_online_early_normalize.py": ("attention", {"online-softmax-early-normalize"}, 1),
    "buggy_split_kv_unscaled.py": ("attention", {"split-combine-unscaled"}, 1),
    # models: token ids -> one vector per token
    "model_sinusoidal.py": ("model", set(), 0),
    "model_causal_no_positions.py": ("model", set(), 0),
    "model_no_positions.py": ("model", {"order-blind"}, 1),
    "model_pe_broadcast.py": ("encode", {"order-blind"}, 1),
    # hostile targets: exit 2 or a finding, never a traceback
    "hostile_raises.py": ("attention", set(), 2),
    "hostile_wrong_shape.py": ("attention", set(), 2),
    "hostile_returns_none.py": ("attention", set(), 2),
    "hostile_nan.py": ("attention", {"nonfinite-output"}, 1),
    "hostile_sleeps.py": ("attention", set(), 2),
    "hostile_sys_exit.py": ("attention", set(), 2),
    "hostile_exits.py": ("attention", set(), 2),
    "hostile_import_error.py": ("attention", set(), 2),
    "hostile_not_callable.py": ("attention", set(), 2),
    "hostile_odd_n.py": ("attention", {"fails-on-valid-input"}, 1),
    "hostile_prints.py": ("attention", set(), 0),
    # torch (skipped when torch is not installed)
    "torch_correct_sdpa.py": ("attention", set(), 0),
    "torch_correct_manual.py": ("attention", set(), 0),
    # written for one (n, d) sequence: right there, a warning for batches
    "torch_2d_dot_T.py": ("attention", set(), 0),
    "torch_buggy_heads_axis.py": ("attention", {"softmax-wrong-axis"}, 1),
    "torch_buggy_fill.py": ("attention", {"causal-mask-finite-fill"}, 1),
    "torch_model_no_positions.py": ("model", {"order-blind"}, 1),
    # as published code writes attention: layouts, modules, half precision, argument names
    "torch_whisper_fp16.py": ("attn.qkv_attention", set(), 0),
    "torch_hf_eager_bf16.py": ("eager_attention_forward", set(), 0),
    # module-first: `module` before q, k, v gets a stand-in answering what the function reads
    "buggy_hf_eager_module_axis.py": ("eager_attention_forward", {"softmax-wrong-axis"}, 1),
    "torch_nanogpt_head.py": ("head", set(), 0),
    "torch_nanogpt_head_scale_C.py": ("head", {"scale-wrong"}, 1),
    "torch_flash_ref_bnhd.py": ("attention_ref", set(), 0),
    "torch_padding_multiplied.py": ("attention_ref", {"padding-mask-leak"}, 1),
    "torch_einsum_bhnd.py": ("attend", set(), 0),
    "torch_bmm_by_d.py": ("attention", {"scale-by-d"}, 1),
    "torch_module_mask.py": ("sdpa", set(), 0),
    "torch_values_keys_query.py": ("attention", set(), 0),
    "torch_two_masks.py": ("attention", {"causal-mask-multiplied"}, 1),
    "torch_key_padding.py": ("attention", set(), 0),
    # renormalised after the softmax: its own finding, the NaN rows its evidence
    "torch_renorm_mask.py": ("attention", {"causal-mask-after-softmax"}, 1),
    "buggy_renorm_after_softmax.py": ("attention", {"causal-mask-after-softmax"}, 1),
    "torch_split_kv_merge.py": ("attention", set(), 0),
    "torch_split_kv_unscaled.py": ("attention", {"split-combine-unscaled"}, 1),
    # float16 inside, float64 out, and a causal buffer with no flag (GPT-2 style)
    "torch_gpt2_half_inside.py": ("attn", set(), 0),
    "torch_gpt2_half_mask_multiplied.py": ("attn", {"causal-mask-multiplied"}, 1),
    # a method of a module in training mode; causal by itself, `attention_mask` for padding
    "torch_gpt2_eager_attn.py": ("gpt2._attn", set(), 0),
    # the causal mask as an additive `attn_bias`; `drop_mask` is dropout, after softmax
    "torch_bias_and_drop_mask.py": ("ref_attention", set(), 0),
    # dropout: a probability argument is passed as 0; dropout that is always on is random
    "torch_dropout_p_argument.py": ("attention", set(), 0),
    "torch_dropout_always_on.py": ("attention", {"random-output"}, 1),
    # logit soft-capping on by default (Gemma 2): the reference caps the scores too
    "torch_softcap.py": ("attention_capped", set(), 0),
    # layers with their own projections, called on hidden states x (batch, n, C)
    "torch_layer_nanogpt.py": ("manual", set(), 0),
    "torch_layer_vit.py": ("attn", set(), 0),
    "torch_layer_lecture_head.py": ("head", {"scale-wrong"}, 1),
    "torch_layer_gpt2_conv1d.py": ("gpt2", {"causal-mask-off-by-one"}, 1),
    "torch_layer_heads_mixed.py": ("attn", {"heads-split-wrong"}, 1),
    "torch_layer_softmax_axis.py": ("attend", {"softmax-wrong-axis"}, 1),
    "torch_layer_mask_from_model.py": ("attn", set(), 0),
    "torch_layer_prenorm.py": ("attn", set(), 0),
    # T5's learned bias by relative position, held at 0 for the check
    "torch_layer_relative_bias.py": ("attn", set(), 0),
    # a mask argument left empty is handed a causal mask: here applied after the softmax
    "buggy_layer_mask_after_softmax.py": ("attn", {"causal-mask-after-softmax"}, 1),
    "buggy_layer_own_mask_after_softmax.py": ("attn", {"causal-mask-after-softmax"}, 1),
    # read from the run: a scale of its own under a name never seen; a mask under another name
    "torch_layer_scale_chosen.py": ("attn", set(), 0),
    # built with defaults, a layer scales by 1/sqrt of the width q k^T contracts: the head
    # count's (timm's shipped `num_heads ** -0.5`) or C / heads' where heads are wider, no
    "torch_layer_scale_by_head_dim.py": ("attn", set(), 0),
    "torch_layer_scale_by_heads.py": ("attn", {"scale-wrong"}, 1),
    "torch_layer_wide_heads.py": ("attn", set(), 0),
    "torch_layer_wide_heads_scale_by_width.py": ("attn", {"scale-wrong"}, 1),
    # a scale that is no known slip is the layer's own only when handed to its constructor: a
    # twin built with the defaults holds the same scale in the first, not in the second
    "torch_layer_scale_default_constant.py": ("attn", {"scale-wrong"}, 1),
    "torch_layer_scale_passed_constant.py": ("attn", set(), 0),
    # a scale the constructor requires, or the caller passes (`--arg scale=0.3`), is the
    # layer's own; a forward that ignores the passed one scales wrong
    "torch_layer_scale_required.py": ("attn", set(), 0),
    "torch_layer_scale_forward_arg.py": ("attn", set(), 0),
    "buggy_layer_scale_arg_ignored.py": ("attn", {"scale-wrong"}, 1),
    # a rotation under a name no table holds (lit-llama's `rope` cache): found as the argument
    # the layer cannot be called without, in the form the call takes
    "torch_layer_rope_cache.py": ("attn", set(), 0),
    "torch_layer_rope_cache_unscaled.py": ("attn", {"scale-missing"}, 1),
    # other required arguments beside the rotation, found by what the layer runs with: an int
    # bounding the positions (lit-llama's `max_seq_length`), the positions (`input_pos`)
    "torch_layer_rope_max_seq_length.py": ("attn", set(), 0),
    "torch_layer_input_pos_mask_turned.py": ("attn", {"causal-mask-wrong-triangle"}, 1),
    # JAX layers read from their jaxpr: Flax's MultiHeadDotProductAttention, a layer scaled by d
    "jax_linen_mha_layer.py": ("attn", set(), 0),
    "jax_layer_scale_by_d.py": ("attn", {"scale-by-d"}, 1),
    "torch_layer_mask_other_name.py": ("attn", set(), 0),
    "torch_layer_causal_flag.py": ("fused", {"causal-flag-ignored"}, 1),
    "torch_layer_multihead.py": ("causal_tril", {"causal-mask-wrong-triangle"}, 1),
    "torch_layer_turned.py": ("turned_tril", {"causal-mask-wrong-triangle"}, 1),
    "torch_layer_heads_as_modules.py": ("mha_by_width", {"scale-wrong"}, 1),
    "torch_layer_to_kv.py": ("attn_by_dim", {"scale-wrong"}, 1),
    "torch_layer_from_scratch.py": ("mha_joined", {"heads-joined-wrong"}, 1),
    "torch_layer_t5_style.py": ("unscaled", {"scale-missing"}, 1),
    "torch_layer_rotary.py": ("meta_by_dim", {"scale-by-d"}, 1),
    "torch_layer_per_head_qkv.py": ("attn", set(), 0),
    "torch_layer_grouped_query.py": ("attn", set(), 0),
    # hand-written backward passes (issue 33): the forward right, dq, dk, dv checked too
    "torch_flash_backward.py": ("flash_attention", set(), 0),
    "buggy_flash_bwd_no_scale.py": ("flash_attention", {"backward-scale-missing"}, 1),
    "buggy_flash_bwd_no_row_term.py": ("flash_attention", {"backward-softmax-no-row-term"}, 1),
    "buggy_flash_bwd_unmasked.py": ("flash_attention", {"backward-causal-leak"}, 1),
    "buggy_flash_bwd_saves_max.py": ("flash_attention", {"backward-stale-weights"}, 1),
    "torch_dropout_backward.py": ("attention", set(), 0),
    "buggy_dropout_backward.py": ("attention", {"backward-dropout-mismatch"}, 1),
    # shipped backward bugs, reproduced (the issue each comes from in its docstring), and
    # memory-efficient attention whose backward is autograd's through checkpointed chunks
    "buggy_flash_bwd_causal_bounds.py": ("flash_attention", {"backward-wrong-output"}, 1),
    "buggy_flash_bwd_padded_scale.py": ("flash_attention", {"backward-wrong-output"}, 1),
    "torch_memeff_chunked.py": ("attention", set(), 0),
    # a layer's weights' gradients against the float64 forward's derivative
    "torch_layer_custom_backward.py": ("attn", set(), 0),
    "buggy_layer_key_detached.py": ("attn", {"backward-no-gradient"}, 1),
    "buggy_layer_value_no_grad.py": ("attn", {"backward-no-gradient"}, 1),
    "buggy_layer_custom_bwd_no_dk.py": ("attn", {"backward-no-gradient"}, 1),
    "buggy_layer_custom_bwd_no_scale.py": ("attn", {"backward-scale-missing"}, 1),
    # a Triton kernel with its backward, on a CPU under Triton's interpreter (skipped without
    # triton): fp16, (batch, heads, n, d), power-of-two head sizes and n a multiple of 16 only
    "triton_fused_attention.py": ("attention", set(), 0),
    # asks Triton's driver at import and autotunes: a stand-in driver on a CPU
    "triton_launcher_asks_driver.py": ("attention", set(), 0),
    # no boundary mask: at n not a multiple of its 128-row block it reads past q, k and v (it
    # runs at n = 128 only, where it is checked); and the same kernel with `mask=offs < n`
    "triton_unmasked_tail.py": ("attention", {"reads-out-of-bounds"}, 1),
    "triton_masked_tail.py": ("attention", set(), 0),
    # the same with 256-wide blocks: it runs at no length tried up to 128, only at its block's
    # multiples, read from the launch's constexprs (issue 47, eighth round)
    "triton_unmasked_block256.py": ("attention", {"reads-out-of-bounds"}, 1),
    # JAX cases (jax_*.py) run once, in test_real_code.py: XLA compiles each new input shape,
    # so a JAX check takes seconds, and twice over here would dominate the suite.
    "mlxlike_correct.py": ("attention", set(), 0),
    # MLX layers as mlx-lm writes them, read by name and checked by effect (skipped without mlx)
    "mlx_layer_llama.py": ("attn", set(), 0),
    "mlx_layer_heads_split.py": ("attn", {"heads-split-wrong"}, 1),
    "tinygrad_correct.py": ("attention", set(), 0),
    "keras_layer_scale_missing.py": ("attn", {"scale-missing"}, 1),
    "keras_layer_builtin_mha.py": ("attn", set(), 0),
    "keras_layer_builtin_gqa.py": ("attn", set(), 0),
    "torch_layer_rotary_each_call.py": ("attn", {"scale-missing"}, 1),
}
# Extra arguments a case needs, as `check(args=...)` and as `--arg` for the CLI.
ARGS: dict[str, dict[str, Any]] = {
    "torch_hf_eager_bf16.py": {"module": None},
    "torch_layer_scale_forward_arg.py": {"scale": 0.3},
    "buggy_layer_scale_arg_ignored.py": {"scale": 0.3},
}
# Files the API cannot even be handed (they do not import) or that would end pytest itself.
CLI_ONLY = {
    "hostile_import_error.py",
    "hostile_exits.py",
    # MLX imported here would make every later check() run in this process, not a fork
    # (contain.fork_unsafe), and the containment tests fail: MLX layers go through the CLI
    "mlx_layer_llama.py",
    "mlx_layer_heads_split.py",
}
# The CLI's transport on a file of each kind: ok, buggy (one id and two), a target that
# prints, raises, exits or calls sys.exit, one that does not import, and torch with --arg.
THROUGH_CLI = {
    "correct_numpy_basic.py",
    "buggy_mask_multiply.py",
    "buggy_not_normalized.py",
    "hostile_prints.py",
    "hostile_raises.py",
    "hostile_sys_exit.py",
    "torch_hf_eager_bf16.py",
    "buggy_layer_scale_arg_ignored.py",
} | CLI_ONLY
WARNINGS = {"long-key-takeover", "batched-input-unsupported"}
VERDICTS = {0: "ok", 1: "buggy", 2: "error"}
FAST = 2.0  # the sleeper's per-call timeout in these tests, so it costs 2 s, not 10
# every other target's, and the budget of a whole check: a call that hangs still ends in an
# error verdict, which fails its test, while a slow target on a loaded CPU is not cut short
# (torch_memeff_chunked takes 1.1 s in all unloaded; at a load of 12 on 2 cores its first call
# took over 2 s and its check 45 s, the default budget)
ROOMY = 15.0
TEST_BUDGET = 120.0
SLEEPERS = {"hostile_sleeps.py"}


def timeout(file: str) -> float:
    """The per-call timeout a corpus file is checked with in the tests."""
    if file in SLEEPERS:
        return FAST
    # the interpreter runs each Triton program in Python: a call takes seconds, not ms
    return 30.0 if file.startswith("triton_") else ROOMY


def _skip_missing(file: str) -> None:
    """Skip a case whose framework is not installed (or, for tinygrad, cannot run)."""
    for prefix, have in FRAMEWORKS.items():
        if not file.startswith(prefix):
            continue
        if have is None:
            have = FRAMEWORKS[prefix] = _tinygrad_runs()
        if not have:
            pytest.skip(f"{prefix.rstrip('_')} is not installed or cannot run here")


def _load(file: str) -> Any:
    if file.startswith("triton_"):  # as the CLI does: the interpreter, a stand-in driver
        from selfattn.check.interpret import on_cpu

        on_cpu()
    spec = importlib.util.spec_from_file_location(f"corpus_{Path(file).stem}", CORPUS / file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # as an import would: the report finds `head` by its name
    spec.loader.exec_module(module)
    target: Any = module
    for part in CASES[file][0].split("."):
        target = getattr(target, part)
    return target


def _cli(*args: str, timeout: float = 90) -> subprocess.CompletedProcess[str]:
    paths = [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}
    return subprocess.run(
        [sys.executable, "-m", "selfattn.check.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=ROOT,
        check=False,
    )


def _errors(findings: list[dict[str, Any]]) -> set[str]:
    return {f["id"] for f in findings if f["severity"] == "error"}


# -- a run with the default timeout, started first and awaited last ------------------------


@pytest.fixture(scope="module")
def default_sleeper() -> Any:
    """`selfattn check` on a target that sleeps for an hour, with the default limits.

    A thread notes when the child ends, so the limit is measured on the child alone, however
    long the tests in between take.
    """
    started = time.monotonic()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "selfattn.check.cli", f"{CORPUS / 'hostile_sleeps.py'}:attention"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    ended: list[float] = []
    watcher = threading.Thread(target=lambda: (proc.wait(), ended.append(time.monotonic())))
    watcher.start()
    yield proc, started, ended
    if proc.poll() is None:
        proc.kill()
        proc.communicate()


def test_default_sleeper_started(default_sleeper: Any) -> None:
    proc, _, _ = default_sleeper
    assert proc.poll() is None  # still waiting on the sleeping call while the rest runs


# -- the corpus, through the API and the CLI ------------------------------------------------


@pytest.mark.parametrize("file", sorted(set(CASES) - CLI_ONLY))
def test_api(file: str) -> None:
    _skip_missing(file)
    _, expected, status = CASES[file]
    report = check(_load(file), timeout=timeout(file), budget=TEST_BUDGET, args=ARGS.get(file))
    found = {f.id for f in report.errors}
    assert (report.exit_status, found) == (status, expected), str(report)
    assert set(report.ids) - found <= WARNINGS
    if status == 2:
        assert report.error and "Traceback" not in report.error
    for f in report.findings:  # each finding comes with a reproduction
        assert f.repro and CASES[file][0] in f.repro, f.id
    assert_json_says(report.to_dict(), status, expected)


def assert_json_says(report: dict[str, Any], status: int, expected: set[str]) -> None:
    """The report as JSON (what --json prints) gives the verdict and every finding in full."""
    assert report["exit_status"] == status and report["verdict"] == VERDICTS[status]
    assert "Traceback" not in json.dumps(report)
    assert _errors(report["findings"]) == expected
    for f in report["findings"]:
        assert set(f) >= {"id", "severity", "message", "why", "fix", "repro"}
        assert f["severity"] in ("error", "warning") and "\n" not in f["message"]


@pytest.mark.parametrize("file", sorted(THROUGH_CLI))
def test_cli_json(file: str) -> None:
    _skip_missing(file)
    name, expected, status = CASES[file]
    started = time.monotonic()
    extra = [f"--arg={k}={v!r}" for k, v in ARGS.get(file, {}).items()]
    proc = _cli(f"{CORPUS / file}:{name}", "--json", "--timeout", str(timeout(file)), *extra)
    assert time.monotonic() - started < 60
    assert "Traceback" not in proc.stdout + proc.stderr
    report = json.loads(proc.stdout)  # stdout is the JSON alone, even if the target prints
    assert proc.returncode == status, proc.stdout
    assert_json_says(report, status, expected)


@pytest.mark.skipif(not (HAS_TRITON and HAS_TORCH), reason="triton or torch is not installed")
def test_triton_interpret_set_already_still_stands_in_for_the_driver(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """TRITON_INTERPRET=1 set before the check, as Triton's docs suggest: the launcher that asks
    the driver at import and autotunes still gets the CPU stand-in (it failed with "0 active
    drivers")."""
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    file = "triton_launcher_asks_driver.py"
    proc = _cli(f"{CORPUS / file}:attention", "--json", "--timeout", str(timeout(file)))
    assert proc.returncode == 0, proc.stdout
    assert "stand-in" in " | ".join(json.loads(proc.stdout)["notes"])


def test_correct_kernels_warn_only_about_long_keys() -> None:
    """The plain kernels get the long-key warning; QK-norm bounds the scores and does not."""
    assert check(_load("correct_numpy_basic.py")).ids == ["long-key-takeover"]
    assert check(_load("correct_qknorm.py")).ids == []


def test_file_that_is_not_python(tmp_path: Path) -> None:
    """Kept out of the corpus so that ruff can parse the corpus."""
    broken = tmp_path / "broken.py"
    broken.write_text("def attention(q, k, v)\n    return v\n")
    proc = _cli(f"{broken}:attention", "--json")
    assert proc.returncode == 2 and "Traceback" not in proc.stdout + proc.stderr
    assert "SyntaxError" in json.loads(proc.stdout)["error"]


def test_text_report_says_what_why_and_how() -> None:
    proc = _cli(f"{CORPUS / 'buggy_fill_tiny.py'}:attention")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    text = proc.stdout
    for part in ("checked:", "ERROR [causal-mask-finite-fill]", "why it matters:", "fix:"):
        assert part in text
    assert "reproduce:" in text and "from buggy_fill_tiny import attention" in text
    assert "verdict: buggy" in text


def test_reproduction_runs_and_shows_the_leak(tmp_path: Path) -> None:
    """The snippet in the report is real code: run next to the file, it prints the leak."""
    finding = next(f for f in check(_load("buggy_mask_multiply.py")).errors)
    script = tmp_path / "repro.py"
    script.write_text(
        finding.repro.replace("from corpus_buggy_mask_multiply", "from buggy_mask_multiply")
    )
    env = {**os.environ, "PYTHONPATH": str(CORPUS)}
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    assert np.abs(np.array(re.findall(r"-?\d+\.\d+", proc.stdout), dtype=float)).max() > 0.1


def test_finite_fill_names_its_value() -> None:
    report = check(_load("buggy_fill_tiny.py"))
    assert "-1e-12" in report.errors[0].message


def test_mask_convention_is_said() -> None:
    notes = {
        "correct_quarter_scale.py": "boolean keep",
        "correct_block_mask.py": "boolean block",
        "correct_additive_mask.py": "additive",
        "correct_softmax_one_more.py": "additive",
    }
    for file, kind in notes.items():
        assert any(kind in n for n in check(_load(file)).notes), file


def test_api_takes_lambdas_and_never_raises() -> None:
    assert check(lambda q, k, v: v).ids == ["wrong-output"]
    assert check(lambda q, k, v: 1 / 0).verdict == "error"
    assert check(42).verdict == "error"  # type: ignore[arg-type]
    assert check(lambda: None).verdict == "error"
    report = check(lambda q, k, v: q, kind="model")
    assert report.verdict == "error" and "ids" in (report.error or "")


def test_main_in_process(capsys: pytest.CaptureFixture[str]) -> None:
    """`selfattn check` as the lead wires it: cli.main(argv) returns the exit status."""
    assert check_cli.main([f"{CORPUS / 'buggy_scale_by_d.py'}:attention", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["findings"][0]["id"] == "scale-by-d"
    assert check_cli.main([f"{CORPUS / 'nope.py'}:attention"]) == 2
    assert "no such file" in capsys.readouterr().out
    assert check_cli.main([f"{CORPUS / 'correct_loops.py'}"]) == 2  # no :NAME
    assert check_cli.main([f"{CORPUS / 'correct_loops.py'}:missing"]) == 2
    assert "causal_attention" in capsys.readouterr().out  # says what the file does define
    assert check_cli.main(["--help"]) == 0
    assert check_cli.main([]) == 2


def test_limits_stay_under_a_minute() -> None:
    assert BUDGET + check_cli.SLACK < 60 and TIMEOUT <= BUDGET


# -- the reference and the catalogue --------------------------------------------------------


def test_reference_agrees_with_the_toy_head() -> None:
    """The float64 reference and the article's head compute the same thing, masks included."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((7, 5))
    eye = np.eye(5)
    for mask, variant in (("none", CORRECT), ("causal", CAUSAL)):
        assert np.allclose(toy_attention(x, eye, eye, eye, mask)["out"], variant.run(x, x, x))
    multiplied = next(v for v in causal_bugs(CORRECT) if v.id == "causal-mask-multiplied")
    assert np.allclose(toy_attention(x, eye, eye, eye, "multiply")["out"], multiplied.run(x, x, x))


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 40),
    d=st.integers(1, 130),
    seed=st.integers(0, 2**32 - 1),
    causal=st.booleans(),
    size=st.sampled_from([0.1, 1.0, 5.0]),
)
def test_tolerance_passes_low_precision_kernels(
    n: int, d: int, seed: int, causal: bool, size: float
) -> None:
    """No false alarm at any shape or scale: a tiled float32 kernel and a float16 one stay
    within the tolerance measured from a naive low-precision reference."""
    q, k, v = np.random.default_rng(seed).standard_normal((3, n, d)) * [[[size]], [[size]], [[1]]]
    want = CAUSAL if causal else CORRECT
    tiled = np.asarray(FLASH(q, k, v, causal=causal), dtype=np.float64)
    assert (a := agree(tiled, want, q, k, v, FLOAT32)) is not None and a.ok, (a.err, a.tol)
    half = np.asarray(_half(q, k, v, causal=causal), dtype=np.float64)
    assert (a := agree(half, want, q, k, v, FLOAT16)) is not None and a.ok, (a.err, a.tol)


FLASH = _load("correct_online_softmax.py")


def _online(tile: int, rescale: bool, dtype: type = np.float32) -> Any:
    """An online-softmax kernel streaming `tile` keys at a time, with or without the rescale."""

    def attention(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
        q, k, v = (np.asarray(x, dtype=dtype) for x in (q, k, v))
        acc = np.zeros((q.shape[0], v.shape[1]), dtype=dtype)
        m = np.full(q.shape[0], -np.inf, dtype=dtype)
        total = np.zeros(q.shape[0], dtype=dtype)
        for j in range(0, k.shape[0], tile):
            s = q @ k[j : j + tile].T / dtype(np.sqrt(q.shape[1]))
            m_new = np.maximum(m, s.max(axis=1))
            fix = np.exp(m - m_new) if rescale else np.ones_like(m)
            p = np.exp(s - m_new[:, None])
            total = total * fix + p.sum(axis=1)
            acc = acc * fix[:, None] + p @ v[j : j + tile]
            m = m_new
        return acc / total[:, None]

    return attention


@pytest.mark.parametrize("tile", [1, 2, 3, 16, 64, 128])
def test_tiles_of_any_size(tile: int) -> None:
    """Right at every tile size, and the missing rescale named at every tile size, including
    tiles longer than every short probe (found by the long, rising-score probe alone)."""
    right = check(_online(tile, rescale=True), timeout=FAST)
    assert right.ok and not _errors([f.to_dict() for f in right.findings]), right.to_text()
    wrong = check(_online(tile, rescale=False), timeout=FAST)
    assert {f.id for f in wrong.findings} == {"online-softmax-no-rescale"}, wrong.to_text()


def _half(q: np.ndarray, k: np.ndarray, v: np.ndarray, causal: bool) -> np.ndarray:
    q, k, v = (x.astype(np.float16) for x in (q, k, v))
    s = (q @ k.T) / np.float16(np.sqrt(q.shape[-1]))
    if causal:
        s = np.where(np.tril(np.ones(s.shape, dtype=bool)), s, np.float16(-np.inf))
    e = np.exp(s - s.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True)) @ v


def test_catalogue_ids_are_stable_and_documented() -> None:
    ids = [s.id for s in SPECS]
    assert len(ids) == len(set(ids))
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", i) for i in ids)
    documented = re.findall(r"^\| `([a-z0-9-]+)` \|", DOCS.read_text(), flags=re.M)
    assert documented == ids  # the docs table lists every id, in catalogue order
    # and is the catalogue's own table, made from its entries: paste this when it is not
    assert id_table() in DOCS.read_text(), id_table()


# -- last: the default-timeout run has finished, in under a minute --------------------------


def test_default_sleeper_gives_exit_2_within_a_minute(default_sleeper: Any) -> None:
    proc, started, ended = default_sleeper
    out, err = proc.communicate(timeout=70)
    assert proc.returncode == 2 and ended and ended[0] - started < 60
    assert "did not return within" in out and "Traceback" not in out + err
