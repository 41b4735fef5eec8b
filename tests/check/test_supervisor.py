"""The supervisor over a check's target (contain.py) when things go wrong around it: its caller
killed outright, a target that kills it, a target that prints without end (hostile pass 5)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from .test_containment import ATTENTION, ROOT, alive, gone_soon, needs_proc, target

STARTS_A_DETACHED_SLEEPER = """
import os, subprocess, time
def attention(q, k, v):
    child = subprocess.Popen(["sleep", "120"], start_new_session=True)
    with open({pids!r} + ".tmp", "w") as f:
        f.write(f"{{child.pid}} {{os.getpid()}}")
    os.rename({pids!r} + ".tmp", {pids!r})
    time.sleep(120)
"""

BY_API = """
import sys
sys.path.insert(0, {folder!r})
from target import attention
from selfattn.check import check
check(attention, timeout=200, budget=200)
"""


def _wait_for(path: Path, seconds: float = 30) -> None:
    until = time.monotonic() + seconds
    while not path.exists() and time.monotonic() < until:
        time.sleep(0.05)
    assert path.exists(), "the target was never called"


@needs_proc
@pytest.mark.parametrize("way", ["command", "api"])
def test_a_caller_killed_outright_leaves_no_process_and_no_folder(tmp_path, way):
    """Medium 3: SIGKILL to `selfattn check` (or to a script calling check()) mid-run left the
    target's children running and the check's temporary folder behind."""
    pids = tmp_path / "pids"
    path = target(tmp_path, STARTS_A_DETACHED_SLEEPER.format(pids=str(pids)))
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(temporary)}
    if way == "command":
        argv = ["-m", "selfattn.check.cli", f"{path}:attention", "--timeout", "200"]
    else:
        argv = ["-c", BY_API.format(folder=str(tmp_path))]
    caller = subprocess.Popen(
        [sys.executable, *argv], cwd=tmp_path, env=env, stdout=subprocess.DEVNULL
    )
    try:
        _wait_for(pids)
        sleeper, worker = (int(p) for p in pids.read_text().split())
        caller.kill()
        caller.wait(timeout=10)
        assert gone_soon(worker), "the target outlived its caller"
        assert gone_soon(sleeper), "the target's child outlived the check's caller"
        until = time.monotonic() + 5
        while list(temporary.iterdir()) and time.monotonic() < until:
            time.sleep(0.05)
        assert list(temporary.iterdir()) == [], "the check's temporary folder was left behind"
    finally:
        caller.kill()
        caller.wait()
        for pid in (int(p) for p in pids.read_text().split()) if pids.exists() else ():
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


KILLS_ITS_SUPERVISOR = """
import ctypes, os, signal
def attention(q, k, v):
    ctypes.CDLL(None).prctl(1, 0, 0, 0, 0)  # outlive the supervisor: no PDEATHSIG
    os.kill(os.getppid(), signal.SIGKILL)
    return softmax_attention(q, k, v)
"""


def _command(path: Path, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "selfattn.check.cli", f"{path}:attention", "--budget", "20"],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=90,
    )


@needs_proc
@pytest.mark.parametrize("way", ["command", "api"])
def test_a_target_that_kills_its_supervisor_is_named_as_a_suspect(tmp_path, way):
    """Medium 6: the target killed the process above it; the report blamed an exit or a crash."""
    if way == "command":
        result = _command(target(tmp_path, KILLS_ITS_SUPERVISOR), tmp_path)
        assert result.returncode == 2, result.stdout + result.stderr
        said = result.stdout
    else:
        from selfattn.check import check

        namespace: dict = {}
        exec(ATTENTION + textwrap.dedent(KILLS_ITS_SUPERVISOR), namespace)
        report = check(namespace["attention"], budget=20)
        assert report.verdict == "error"
        said = report.error or ""
    assert "signal SIGKILL before reporting (did the target kill it" in " ".join(said.split())


def test_a_report_written_under_a_killed_supervisor_is_no_clean_verdict(tmp_path):
    """Medium 6: a report the worker wrote after the target killed its supervisor (from a
    detached grandchild, say) came back `verdict: ok`, exit status 0."""
    from selfattn.check import contain
    from selfattn.check.report import Report

    b = contain.Box(tmp_path)
    b.work.mkdir()
    b.report.write_text(Report("t", kind="kernel").to_json(), "utf-8")
    assert contain.collect(b, "t", 0, 10, 1).verdict == "ok"
    report = contain.collect(b, "t", -9, 10, 1)
    assert report.verdict == "error" and report.exit_status == 2
    assert "supervising the target ended with signal SIGKILL" in (report.error or "")
    assert "did the target kill it?" in (report.error or "")


PRINTS_WITHOUT_END = """
import os, time
def attention(q, k, v):
    line = "x" * 1000 + "\\n"
    for _ in range(20_000):  # 20 MB
        print(line, end="")
    print("the last line", flush=True)
    with open({sizes!r}, "a") as f:
        f.write(f"{{os.path.getsize('../output.log')}}\\n")
    return softmax_attention(q, k, v)
"""


@needs_proc
def test_a_target_printing_without_end_fills_no_disk_and_keeps_its_verdict(tmp_path):
    """Medium 7: a target printing in a loop wrote 737 MB in 5 s into the check's log."""
    sizes = tmp_path / "sizes"
    result = _command(target(tmp_path, PRINTS_WITHOUT_END.format(sizes=str(sizes))), tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    largest = max(int(s) for s in sizes.read_text().split())
    assert largest < 1_000_000, f"the log held {largest} bytes"  # 20 MB a call before


EXITS_AFTER_PRINTING = """
def attention(q, k, v):
    print("x" * 5_000_000)
    print("the last line before the exit", flush=True)
    import os
    os._exit(3)
"""


def test_the_last_line_of_a_long_output_still_says_why_the_check_stopped(tmp_path):
    result = _command(target(tmp_path, EXITS_AFTER_PRINTING), tmp_path)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "status 3" in result.stdout and "the last line before the exit" in result.stdout


def test_the_output_kept_is_its_start_and_its_end_with_what_was_left_out_counted(tmp_path):
    from selfattn.check import contain

    log = tmp_path / "log"
    out = contain.Output(os.open(log, os.O_WRONLY | os.O_CREAT, 0o600))
    for i in range(100):
        out.take(bytes([65 + i % 26]) * 10_000)
    out.close()
    kept = log.read_bytes()
    left_out = 100 * 10_000 - 2 * contain.KEPT
    assert f"[selfattn check: {left_out} bytes of output left out here]".encode() in kept
    assert kept.startswith(b"A" * 10_000) and kept.endswith(b"V" * 10_000)
    assert len(kept) < 2 * contain.KEPT + 100


PRINTS_ESCAPES = """
import os
def attention(q, k, v):
    if os.environ.get("SELFATTN_RAISE"):
        raise ValueError("\\x1b]0;owned\\x07\\x1b[2J\\u202egnp.exe")
    print("\\x1b[2J\\x1b[31mthe screen is cleared\\x9b", flush=True)
    os._exit(3)
"""


@pytest.mark.parametrize("raises", [False, True])
def test_control_characters_from_the_target_never_reach_the_terminal(tmp_path, raises, monkeypatch):
    """Hostile pass 5 (Low): ANSI escapes a target printed or raised reached the user's terminal
    through the report (a cleared screen, a retitled window)."""
    if raises:
        monkeypatch.setenv("SELFATTN_RAISE", "1")
    result = _command(target(tmp_path, PRINTS_ESCAPES), tmp_path)
    assert result.returncode == 2, result.stdout + result.stderr
    shown = result.stdout
    assert not set(shown) & {"\x1b", "\x07", "\x9b", "\u202e"}, repr(shown)
    assert ("\\x1b]0;owned" if raises else "\\x1b[2J\\x1b[31mthe screen is cleared") in shown


@pytest.mark.parametrize("from_a_thread", [False, True])
def test_a_caller_ignoring_sigchld_still_gets_its_report(from_a_thread):
    """Hostile pass 5 (Low): check() with SIGCHLD set to SIG_IGN failed with ECHILD."""
    import threading

    from selfattn.check import check

    from .test_containment import softmax_attention

    previous = signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    try:
        reports = []
        if from_a_thread:
            thread = threading.Thread(target=lambda: reports.append(check(softmax_attention)))
            thread.start()
            thread.join(60)
        else:
            reports.append(check(softmax_attention))
        assert signal.getsignal(signal.SIGCHLD) == signal.SIG_IGN  # as the caller had it
    finally:
        signal.signal(signal.SIGCHLD, previous)
    assert reports and reports[0].ok, reports and reports[0].to_text()
