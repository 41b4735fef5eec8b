"""Signals that end a command, handled so that nothing is left behind or cut in half.

SIGTERM and SIGHUP end a command as Ctrl-C does, by an exception, so cleanup runs: their
default action ends the process on the spot, leaving behind what a `finally` block would
have deleted (`selfattn build`'s half-written folder, `selfattn serve`'s temporary build,
`selfattn check`'s child and everything it started). And a step that must finish once begun
(two renames that swap a build in, deleting a temporary folder) holds any of the three until
it is done, then acts on it.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

ENDING = ("SIGINT", "SIGTERM", "SIGHUP")  # Windows has no SIGHUP
# The note on the exception a signal raises once `selfattn build` has put the new build in
# place. Here, not in site/build.py: the command's handler reads it, and a signal may come
# while that module is half imported, which importing it again cannot finish.
SWAPPED = "the new build was already in place"


class Stopped(SystemExit):
    """SIGTERM or SIGHUP, raised as an exception; its code is 128 + the signal's number."""


def _signals(names: tuple[str, ...]) -> list[signal.Signals]:
    return [s for n in names if (s := getattr(signal, n, None))]


@contextmanager
def ended_by_signals() -> Iterator[None]:
    """Within the block, SIGTERM and SIGHUP raise Stopped(128 + the signal), so the `finally`
    blocks run. Only from the main thread, where signal handlers are set."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, _frame: object) -> None:
        raise Stopped(128 + signum)

    previous = {s: signal.signal(s, stop) for s in _signals(ENDING[1:])}
    try:
        yield
    finally:
        for s, handler in previous.items():
            if signal.getsignal(s) is stop:  # not one set since (see settled)
                signal.signal(s, handler)


def settled() -> None:
    """From here on SIGINT, SIGTERM and SIGHUP are ignored: the work is done and only its
    report is left, which a signal would make false ("stopped", when it was not)."""
    if threading.current_thread() is threading.main_thread():
        for s in _signals(ENDING):
            signal.signal(s, signal.SIG_IGN)


@contextmanager
def deferred() -> Iterator[None]:
    """Within the block, SIGINT, SIGTERM and SIGHUP are held, not acted on; on leaving it,
    the first one held goes to the handler that was in place (Ctrl-C's KeyboardInterrupt, or
    ended_by_signals' Stopped), raised from the end of the block. From other threads than
    the main one, where a handler cannot be set, the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []
    previous = {
        s: signal.signal(s, lambda signum, _: held.append(signum)) for s in _signals(ENDING)
    }
    try:
        yield
    finally:
        for s, handler in previous.items():
            if handler is not None:  # None: set outside Python, and cannot be set again
                signal.signal(s, handler)
        if held:
            signal.raise_signal(held[0])
