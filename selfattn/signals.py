"""SIGTERM and SIGHUP ending a command as Ctrl-C does: by an exception, so cleanup runs.

Their default action ends the process on the spot, leaving behind what a `finally` block
would have deleted: `selfattn build`'s half-written folder, `selfattn serve`'s temporary
build, `selfattn check`'s child and everything it started.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def ended_by_signals() -> Iterator[None]:
    """Within the block, SIGTERM and SIGHUP raise SystemExit(128 + the signal), so the
    `finally` blocks run. Only from the main thread, where signal handlers are set."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, _frame: object) -> None:
        raise SystemExit(128 + signum)

    names = ("SIGTERM", "SIGHUP")  # Windows has no SIGHUP
    previous = {s: signal.signal(s, stop) for n in names if (s := getattr(signal, n, None))}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
