"""Ctrl-C while `selfattn` starts: one line and status 130, never a traceback (hostile pass 4).

A signal cannot be sent at an exact moment of start-up, so each test raises KeyboardInterrupt
where a real one lands: in an import the command makes (argparse, numpy's C extension, which
turns it into an ImportError)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

INTERRUPTING = """
import os, signal, sys

class Interrupt:  # Ctrl-C as `{module}` is imported
    @staticmethod
    def find_spec(name, *_):
        if name == {module!r}:
            {how}
        return None

sys.meta_path.insert(0, Interrupt)
from selfattn.__main__ import main
sys.exit(main(["claims"]))
"""


def run(module: str, how: str) -> subprocess.CompletedProcess:
    code = INTERRUPTING.format(module=module, how=how)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
    )


def test_ctrl_c_while_the_command_loads_argparse_is_one_line():
    result = run("argparse", "raise KeyboardInterrupt")
    assert "Traceback" not in result.stderr, result.stderr
    assert (result.returncode, result.stderr) == (130, "selfattn: interrupted\n")


def test_ctrl_c_that_an_import_turns_into_another_error_is_one_line():
    # numpy: "Importing the numpy C-extensions failed ... PyCapsule_Import could not import"
    how = (
        "try:\n                os.kill(os.getpid(), signal.SIGINT)\n"
        "            except KeyboardInterrupt:\n"
        "                raise ImportError('PyCapsule_Import could not import') from None"
    )
    result = run("selfattn.claims_table", how)
    assert "Traceback" not in result.stderr, result.stderr
    assert (result.returncode, result.stderr) == (130, "selfattn: interrupted\n")
