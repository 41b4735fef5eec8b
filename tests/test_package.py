"""`import selfattn` is cheap, and names its parts (hostile pass 4: `selfattn.check` raised
AttributeError unless selfattn.check had been imported)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def python(code: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_selfattn_check_is_an_attribute_imported_when_named():
    out = python(
        "import sys, selfattn; before = 'selfattn.check' in sys.modules; "
        "print(before, callable(selfattn.check.check), 'check' in dir(selfattn))"
    )
    assert out == "False True True"


def test_an_unknown_attribute_still_raises():
    out = python(
        "import selfattn\ntry:\n    selfattn.nothing\nexcept AttributeError as e:\n    print(e)"
    )
    assert out == "module 'selfattn' has no attribute 'nothing'"
