"""`selfattn check` on dropout: a probability passed as 0, output that stays random named before
the mask is probed, and a report that ends quietly on a closed pipe."""

from __future__ import annotations

import os
import subprocess
import sys

from selfattn.check import check

from .published import CORPUS, ROOT, cli, load, needs_torch, notes

# -- dropout ----------------------------------------------------------------------------


@needs_torch
def test_dropout_probability_is_passed_as_zero_unless_chosen() -> None:
    report = check(load("torch_dropout_p_argument.py", "attention"))
    assert report.ok and "`dropout_p` passed as 0.0" in notes(report), str(report)
    assert "dropout_p=0.0" in report.findings[0].repro  # the reproduction runs it the same way
    chosen = cli(
        str(CORPUS / "torch_dropout_p_argument.py") + ":attention", "--arg", "dropout_p=0.3"
    )
    assert [f["id"] for f in chosen["findings"] if f["severity"] == "error"] == ["random-output"]
    assert "dropout_p=0.3" in " ".join(chosen["notes"])


@needs_torch
def test_random_output_stops_before_the_mask_is_probed() -> None:
    """Noise would make the mask's convention and every comparison after it a guess."""
    report = check(load("torch_dropout_always_on.py", "attention"))
    assert report.ids == ["random-output"], str(report)
    assert not any("mask argument" in n for n in report.notes), notes(report)
    assert "a = attention(q, k, v)" in report.errors[0].repro


def test_a_closed_pipe_ends_the_report_quietly() -> None:
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
