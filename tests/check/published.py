"""What the tests of `selfattn check` on attention as published code writes it share: the corpus,
the optional frameworks, loading a target from a corpus file, and the CLI's JSON."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

CORPUS = Path(__file__).parent / "corpus"
ROOT = Path(__file__).resolve().parents[2]
torch = pytest.importorskip("torch") if importlib.util.find_spec("torch") else None  # optional
needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")
needs_jax = pytest.mark.skipif(
    importlib.util.find_spec("jax") is None, reason="jax is not installed"
)


def load(file: str, name: str, prefix: str = "real") -> Any:
    """`name` (dotted) from a corpus file, its module imported as `<prefix>_<stem>`."""
    spec = importlib.util.spec_from_file_location(f"{prefix}_{Path(file).stem}", CORPUS / file)
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


def softmax(s: np.ndarray) -> np.ndarray:
    """A plain softmax over the last axis, in the scores' own dtype, for kernels written here."""
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
