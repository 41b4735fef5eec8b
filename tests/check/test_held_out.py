"""The held-out manifest (corpus/published.toml) against the corpus headers, and the real
published files checked where they are at hand: set SELFATTN_HELD_OUT to a folder laid out as
<owner>+<name>/<commit>/<path>; without it the run is skipped."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bench import held_out

from .corpus_cases import CASES, PUBLISHED

TARGETS = held_out.targets()


def test_every_published_case_is_in_the_manifest() -> None:
    listed = {t.case for t in TARGETS}
    assert set(PUBLISHED) <= listed, set(PUBLISHED) - listed


@pytest.mark.parametrize("t", TARGETS, ids=lambda t: t.label)
def test_manifest_entry_says_where_and_what(t: held_out.Target) -> None:
    assert len(t.commit) == 40 and int(t.commit, 16) >= 0
    assert t.expected.split()[0] in ("ok", "buggy", "error")
    assert t.expected != "error" or t.why, f"{t.label}: say why it is an error"
    said = (CASES[t.case].header or {}) if t.case in CASES else {}
    for key in ("repository", "path", "commit", "licence"):
        assert said.get(key, getattr(t, key)) == getattr(t, key), f"{t.case}: {key}"


def test_held_out_files_give_the_expected_verdicts() -> None:
    root = Path(os.environ.get("SELFATTN_HELD_OUT", "/nonexistent"))
    if not root.is_dir():
        pytest.skip("SELFATTN_HELD_OUT is not a folder of published files")
    rows = [row for row in held_out.run(root) if row[1]["got"] != "absent"]
    wrong = [f"{t.label}: {r}" for t, r in rows if r["got"] != t.expected]
    assert not wrong, "\n".join(wrong)
