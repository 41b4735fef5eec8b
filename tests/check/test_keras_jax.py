"""Keras 3 layers on the JAX backend (KERAS_BACKEND=jax, no torch needed): read from their
jaxpr, with the verdicts they have on torch; a layer whose attention is not read there exits 2
with a one-line error naming the torch backend. Each runs through the CLI: the backend is
chosen when Keras is first imported."""

from __future__ import annotations

import importlib.util

import pytest

from .corpus_cases import CASES
from .published import cli

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("jax") is None or importlib.util.find_spec("keras") is None,
    reason="jax or keras is not installed",
)
READ = ["keras_layer_builtin_mha.py", "keras_layer_builtin_gqa.py", "keras_layer_mha.py"]
READ += ["keras_layer_causal_dropped.py", "keras_layer_scale_missing.py"]


@pytest.fixture(autouse=True)
def _jax_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KERAS_BACKEND", "jax")


@pytest.mark.parametrize("file", READ)
def test_keras_layer_on_jax_gives_its_torch_verdict(file: str) -> None:
    report = cli(f"tests/check/corpus/{file}:{CASES[file].name}")
    assert report["exit_status"] == CASES[file].status, report
    assert {f["id"] for f in report["findings"] if f["severity"] == "error"} == CASES[file].expected
    assert "jax float32" in report["backend"], report


def test_keras_layer_not_read_on_jax_says_to_use_torch() -> None:
    """keras-hub's Llama attention: its rotation is read from torch's calls only."""
    report = cli("tests/check/corpus/keras_layer_gqa_rope.py:attn")
    assert report["exit_status"] == 2, report
    assert "KERAS_BACKEND=torch" in report["error"] and "\n" not in report["error"], report
