"""`check` kills what a hostile target leaves running (hostile pass 6): a process whose main
thread exited while another runs (state Z), and one that hops to a new pid as fast as it forks."""

from __future__ import annotations

import platform
import time
from pathlib import Path

import pytest

from .test_containment import command, needs_proc, target

SYS_EXIT = {"x86_64": 60, "aarch64": 93}.get(platform.machine())  # ends the calling thread alone

MAIN_THREAD_EXITS = """
import ctypes, os, threading, time
started = []
def attention(q, k, v):
    if not started and os.fork() == 0:
        os.setsid()
        def work():  # gives up by itself, so a failing test leaves nothing for long
            until = time.monotonic() + 20
            while time.monotonic() < until:
                time.sleep(0.05)
            os._exit(0)
        threading.Thread(target=work).start()
        with open({pids!r} + ".tmp", "w") as f:
            f.write(str(os.getpid()))
        os.rename({pids!r} + ".tmp", {pids!r})
        ctypes.CDLL(None).syscall({sys_exit}, 0)  # the main thread ends; `work` runs on
    started.append(1)
    while not os.path.exists({pids!r}):
        time.sleep(0.01)
    return softmax_attention(q, k, v)
"""

HOPPER = """
import os, time
started = []
def attention(q, k, v):
    if not started and os.fork() == 0:
        os.setsid()
        with open({pids!r} + ".tmp", "w") as f:
            f.write(str(os.getpid()))
        os.rename({pids!r} + ".tmp", {pids!r})
        until = time.monotonic() + 6  # gives up by itself: a failing test leaves nothing for long
        while time.monotonic() < until:
            if os.fork() != 0:
                os._exit(0)  # the parent leaves, the child carries on: a new pid as fast as it can
        os._exit(0)
    started.append(1)
    while not os.path.exists({pids!r}):
        time.sleep(0.01)
    time.sleep(0.2)
    return softmax_attention(q, k, v)
"""


def living(pid: int) -> bool:
    """Whether `pid` runs: a `Z` with threads left runs too."""
    try:
        state = Path(f"/proc/{pid}/stat").read_bytes().rpartition(b")")[2].split()[0]
        threads = [
            x
            for x in Path(f"/proc/{pid}/status").read_text().splitlines()
            if x.startswith("Threads:")
        ]
    except (OSError, IndexError):
        return False
    return state != b"Z" or int(threads[0].split()[1]) > 1


def in_session(session: int) -> list[int]:
    """The living processes of `session`."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_bytes().rpartition(b")")[2].split()
        except OSError:
            continue
        if int(fields[3]) == session and living(int(stat.parent.name)):
            found.append(int(stat.parent.name))
    return found


@needs_proc
@pytest.mark.skipif(SYS_EXIT is None, reason="needs SYS_exit's number for this machine")
def test_a_process_whose_main_thread_exited_is_killed(tmp_path):
    pids = tmp_path / "pids"
    path = target(tmp_path, MAIN_THREAD_EXITS.format(pids=str(pids), sys_exit=SYS_EXIT))
    result = command(path, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    pid = int(pids.read_text())
    time.sleep(0.5)
    assert not living(pid), "a Z process with a running thread outlived the check"


@needs_proc
def test_a_target_that_hops_to_a_new_pid_without_pause_is_killed(tmp_path):
    pids = tmp_path / "pids"
    path = target(tmp_path, HOPPER.format(pids=str(pids)))
    result = command(path, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    session = int(pids.read_text())
    time.sleep(0.5)
    assert not in_session(session), "the hopper outlived the check"
