"""Published attention code in the corpus: each file says where it comes from and the verdict
`selfattn check` must give (issue 32), and gets it through the Python API."""

from __future__ import annotations

import contextlib
import io

import pytest

from selfattn.check import check

from .corpus_cases import ARGS, CASES, FIELDS, PUBLISHED, TEST_BUDGET, load, skip_missing, timeout


def test_published_cases_are_found() -> None:
    assert "numpy_picogpt.py" in PUBLISHED


@pytest.mark.parametrize("file", PUBLISHED)
def test_published_header_says_where_from(file: str) -> None:
    said = CASES[file].header or {}
    assert set(FIELDS) <= set(said), f"{file} lacks {set(FIELDS) - set(said)}"
    assert len(said["commit"]) == 40 and int(said["commit"], 16) >= 0


@pytest.mark.parametrize("file", PUBLISHED)
def test_published_verdict(file: str) -> None:
    skip_missing(file)
    case = CASES[file]
    with contextlib.redirect_stdout(io.StringIO()):
        report = check(load(file), timeout=timeout(file), budget=TEST_BUDGET, args=ARGS.get(file))
    assert report.exit_status == case.status, str(report)
    assert {f.id for f in report.errors} == case.expected, str(report)
