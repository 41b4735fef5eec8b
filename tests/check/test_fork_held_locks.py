"""`check()` forks while a thread of the caller is writing to a stream (issue 48, hostile
pass): the child inherits that stream's lock held by a thread it lacks. A target logging
through a handler of the caller's stderr waited for it forever, and the report blamed the
target ("did not return within 3 s")."""

from __future__ import annotations

import io
import logging
import sys
import threading
import time

import numpy as np
import pytest

from selfattn.check import check


class Slow(io.RawIOBase):
    """A file whose every write takes 5 ms: a writer holds its stream's lock most of the time,
    as a terminal or a pipe read slowly makes it."""

    def writable(self) -> bool:
        return True

    def write(self, b: object) -> int:
        time.sleep(0.005)
        return len(memoryview(b))  # type: ignore[arg-type]


@pytest.fixture(params=["print", "log"])
def busy_stderr(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest):
    """sys.stderr on a slow file, a logger with a handler on it, and a caller's thread
    printing to it, or logging through the handler (its lock held too), in a tight loop."""
    slow = io.TextIOWrapper(io.BufferedWriter(Slow()), line_buffering=True)
    monkeypatch.setattr(sys, "stderr", slow)
    logger = logging.getLogger("selfattn-test-caller")
    handler = logging.StreamHandler()  # on sys.stderr as it now is
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    stop = threading.Event()

    def chatter() -> None:
        while not stop.is_set():
            if request.param == "print":
                print("the caller prints", file=slow)
            else:
                logger.info("the caller logs")

    thread = threading.Thread(target=chatter, daemon=True)
    thread.start()
    time.sleep(0.05)
    yield logger, handler
    stop.set()
    thread.join(5)
    logger.removeHandler(handler)


def test_fork_while_the_callers_thread_holds_stderr_target_logs(busy_stderr) -> None:
    logger, handler = busy_stderr

    def attention(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
        logger.info("the target logs")
        # as the handler writes, but raising what logging would swallow (a reentrant call)
        handler.stream.write("the target writes\n")
        handler.stream.flush()
        s = q @ k.T / np.sqrt(q.shape[-1])
        w = np.exp(s - s.max(-1, keepdims=True))
        return w / w.sum(-1, keepdims=True) @ v

    for _ in range(2):  # the lock is held at most forks, not at every one
        report = check(attention, timeout=2, budget=8, layout="nd")
        assert report.ok, report
