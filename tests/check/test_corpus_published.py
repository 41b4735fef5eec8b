"""Attention written in our own code after published code: each corpus file says which
published file it follows and the verdict `selfattn check` must give (issue 32), and gets it
through the Python API. The published text itself is never committed (see corpus/README.md)."""

from __future__ import annotations

import contextlib
import io
import re

import pytest

from selfattn.check import check

from .corpus_cases import (
    ARGS,
    CASES,
    CORPUS,
    FIELDS,
    PUBLISHED,
    TEST_BUDGET,
    load,
    skip_missing,
    timeout,
)

AFTER = re.compile(r"^after: .*$", re.M)


def test_published_cases_are_found() -> None:
    assert "numpy_picogpt.py" in PUBLISHED


@pytest.mark.parametrize("file", PUBLISHED)
def test_published_header_says_where_from(file: str) -> None:
    said = CASES[file].header or {}
    assert set(FIELDS) <= set(said), f"{file} lacks {set(FIELDS) - set(said)}"
    assert len(said["commit"]) == 40 and int(said["commit"], 16) >= 0
    assert "/" in said["repository"] and said["path"], f"{file}: `after: OWNER/NAME PATH`"
    # one repository per case; `repository:` was the header of copies, before they were rewritten
    text = (CORPUS / file).read_text()
    assert len({line.split()[1] for line in AFTER.findall(text)}) == 1, file
    assert not re.search(r"^repository: ", text, re.M), f"{file} says `repository:`, not `after:`"


@pytest.mark.parametrize("file", PUBLISHED)
def test_published_verdict(file: str) -> None:
    skip_missing(file)
    case = CASES[file]
    with contextlib.redirect_stdout(io.StringIO()):
        report = check(load(file), timeout=timeout(file), budget=TEST_BUDGET, args=ARGS.get(file))
    assert report.exit_status == case.status, str(report)
    assert {f.id for f in report.errors} == case.expected, str(report)
