"""The corpus as cases: test_check.py's table, and the files that say their case in a header.

A header case is a published implementation whose docstring names where it comes from and
what `selfattn check` must say of it (issue 32):

    repository: jaymody/picoGPT
    path: gpt2.py
    commit: 018a1e1796d7ea3e96032d9667042316c8fa7864
    licence: MIT
    target: attention
    expected: ok                      # or `buggy scale-wrong`, with the error ids
    args: {"module": None}            # optional: extra arguments for every call
"""

from __future__ import annotations

import ast
import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from . import published, test_check

CORPUS = Path(__file__).parent / "corpus"
FIELDS = ("repository", "path", "commit", "licence", "target", "expected")
HEADER = re.compile(r"^(repository|path|commit|licence|target|expected|args): (.*)$", re.M)
STATUS = {"ok": 0, "buggy": 1, "error": 2}


@dataclass(frozen=True)
class Case:
    """What `check` must say of one corpus file."""

    name: str  # the target's name in the file, `attn.qkv_attention`
    expected: set[str]  # the error ids
    status: int  # the exit status
    header: dict[str, str] | None = None  # where a published case comes from


def header(file: str) -> dict[str, str]:
    return dict(HEADER.findall((CORPUS / file).read_text()))


def _cases() -> dict[str, Case]:
    cases = {f: Case(*row) for f, row in test_check.CASES.items()}
    for path in sorted(CORPUS.glob("*.py")):
        if path.name in cases or "target" not in (said := header(path.name)):
            continue
        verdict, *ids = said["expected"].split()
        cases[path.name] = Case(said["target"], set(ids), STATUS[verdict], said)
    return cases


CASES = _cases()
ARGS: dict[str, dict[str, Any]] = {
    **test_check.ARGS,
    **{
        f: ast.literal_eval(c.header["args"])
        for f, c in CASES.items()
        if "args" in (c.header or {})
    },
}
PUBLISHED = sorted(f for f, c in CASES.items() if c.header is not None)
timeout = test_check.timeout  # the per-call timeout each file is checked with
TEST_BUDGET = test_check.TEST_BUDGET  # and the budget of each check


def skip_missing(file: str) -> None:
    """Skip a case whose framework is not installed; the rest are skipped in test_check."""
    for prefix, module in (("jax_", "jax"), ("keras_", "keras"), ("mlx_", "mlx")):
        if file.startswith(prefix) and importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is not installed")
    test_check._skip_missing(file)


def load(file: str) -> Any:
    """The case's target, its module imported as `corpus_<stem>` as test_check does."""
    return published.load(file, CASES[file].name, prefix="corpus")
