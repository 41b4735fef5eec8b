"""Kernels of ours written after a published style (an `after:` header naming the repository,
path and commit followed): each gets the verdict its header expects, the Triton ones under
Triton's interpreter on a CPU within a minute. A header's `layout:` is the layout the check
must find by itself (no `--layout` is given): a (batch, n, heads, d) kernel is read as such."""

from __future__ import annotations

import importlib.util
import re
import time

import pytest

from selfattn.check import check

from .corpus_cases import CORPUS, OWN_TEST, STATUS, header
from .published import load

LAYOUT = re.compile(r"^layout: (.*)$", re.M)
FILES = sorted(OWN_TEST)
HAS_TRITON = importlib.util.find_spec("triton") is not None
HAS_TORCH = importlib.util.find_spec("torch") is not None
MINUTE = 60.0  # the goal for one Triton check on this 2-core machine


def _header(file: str) -> dict[str, str]:
    said = header(file)
    layout = LAYOUT.search((CORPUS / file).read_text())
    return {**said, "layout": layout[1]} if layout else said


def test_files_written_after_published_ones_are_found() -> None:
    found = {"triton_flash_attn_bias.py", "triton_flag_attention.py", "torch_ring_stale_kv.py"}
    shipped = {"triton_flag_attention_flat_delta.py", "torch_flash2_course_mask.py"}
    assert found | shipped <= set(FILES)


@pytest.mark.parametrize("file", FILES)
def test_header_names_what_it_follows(file: str) -> None:
    said = _header(file)
    assert {"after", "commit", "licence", "target", "expected"} <= set(said), said
    assert len(said["commit"]) == 40 and int(said["commit"], 16) >= 0


@pytest.mark.parametrize("file", FILES)
def test_verdict(file: str) -> None:
    if not HAS_TORCH:
        pytest.skip("torch is not installed")
    triton = file.startswith("triton_")
    if triton and not HAS_TRITON:
        pytest.skip("triton is not installed (pip install 'selfattn[triton]')")
    if triton:  # as the CLI does before the file is imported
        from selfattn.check.interpret import on_cpu

        on_cpu()
    said = _header(file)
    verdict, *ids = said["expected"].split()
    started = time.monotonic()
    report = check(load(file, said["target"], prefix="after"), timeout=MINUTE if triton else 5.0)
    took = time.monotonic() - started
    assert report.exit_status == STATUS[verdict], str(report)
    assert {f.id for f in report.errors} == set(ids), str(report)
    if "layout" in said:
        assert f"layout {said['layout']}:" in " | ".join(report.notes), str(report)
    graded = [c for c in report.checks if c.name.startswith("gradients") and c.status != "skip"]
    assert graded, str(report)  # the backward was checked, not skipped
    if triton:
        assert "TRITON_INTERPRET=1" in " | ".join(report.notes)
        assert took < MINUTE, f"{took:.1f} s"
