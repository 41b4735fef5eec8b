"""The corpus as cases: test_check.py's table, and the files that say their case in a header.

A header case is our own code written in the style of a published implementation (its calling
convention, layout, attribute names, mask and scale conventions, its bug if it shipped one);
the header names the file it follows and what `selfattn check` must say of it (issue 32):

    after: jaymody/picoGPT gpt2.py    # the repository and the path followed; one line a file
    commit: 018a1e1796d7ea3e96032d9667042316c8fa7864
    licence: MIT                      # the licence of the file followed
    target: attention
    expected: ok                      # or `buggy scale-wrong`, with the error ids
    args: {"module": None}            # optional: extra arguments for every call

The published text itself is never committed; `bench.held_out` checks it where it is at hand.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from selfattn.check.interpret import on_cpu

from . import published, test_check

CORPUS = Path(__file__).parent / "corpus"
FIELDS = ("after", "commit", "licence", "target", "expected")
HEADER = re.compile(r"^(after|commit|licence|target|expected|args): (.*)$", re.M)
STATUS = {"ok": 0, "buggy": 1, "error": 2}
# cases that need more than the table's run: Triton's interpreter, a layout, longer calls
OWN_TEST = {  # run by test_kernels_after.py
    "buggy_flash_bwd_causal_always.py",
    "torch_flash_buckets.py",
    "torch_flash2_course_mask.py",
    "torch_ring_attention.py",
    "torch_ring_stale_kv.py",
    "triton_flag_attention.py",
    "triton_flag_attention_flat_delta.py",
    "triton_flash_attn_bias.py",
    "triton_tiles_3d.py",
}


@dataclass(frozen=True)
class Case:
    """What `check` must say of one corpus file."""

    name: str  # the target's name in the file, `attn.qkv_attention`
    expected: set[str]  # the error ids
    status: int  # the exit status
    header: dict[str, str] | None = None  # where a published case comes from


def header(file: str) -> dict[str, str]:
    """The header's fields; `after` lines (one per published file followed) also give
    `repository` and `path`, the paths joined by ", "."""
    found = HEADER.findall((CORPUS / file).read_text())
    said = dict(found)
    followed = [line.split(" ", 1) for key, line in found if key == "after"]
    if followed:
        said["repository"] = followed[0][0]
        said["path"] = ", ".join(path for _, path in followed)
    return said


def _cases() -> dict[str, Case]:
    cases = {f: Case(*row) for f, row in test_check.CASES.items()}
    for path in sorted(CORPUS.glob("*.py")):
        if (
            path.name in cases
            or path.name in OWN_TEST
            or "target" not in (said := header(path.name))
        ):
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
    """The case's target, its module imported as `corpus_<stem>` as test_check does; a
    Triton file after the interpreter and the stand-in driver are on, as the CLI does."""
    if file.startswith("triton_"):
        on_cpu()
    return published.load(file, CASES[file].name, prefix="corpus")
