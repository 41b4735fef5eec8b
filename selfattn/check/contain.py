"""Running a check where its target can change nothing of the caller's: a child process.

The child leads a session of its own, so every process the target starts is in its group. It
splits in two: a supervisor that adopts the orphans of whatever detaches (Linux's child
subreaper) and a worker below it that runs the target. The supervisor outlives the worker,
so a process the target starts, detaches (setsid) and orphans by exiting (`os._exit`) is
still the supervisor's, and the supervisor kills every process below it when the worker
ends, however it ends; the caller kills the supervisor and all below it when time runs out.
A caller killed outright (SIGKILL) cannot: the kernel then sends the supervisor SIGTERM
(PR_SET_PDEATHSIG), on which it kills all below it and deletes the check's folder. The
caller itself never becomes a subreaper. A target that kills the supervisor (its parent)
first can still orphan a detached process to init: only a cgroup holds a target that fights
back; the report then says the supervisor was killed, never a clean verdict. Elsewhere than
Linux, the session's group is killed, but a process that leaves the group and whose parent
exits escapes. The target runs in an empty temporary working folder, and the report names
what it wrote there; its TMPDIR (where torch puts its caches) is in the check's folder too,
deleted with it. The child's stdout and stderr go to a file, not a pipe: a target that
prints megabytes costs the parent nothing, a grandchild holding the pipe open cannot keep
the parent waiting, and only the file's last few KB are read. The worker's own output goes
through a pipe to the supervisor, which keeps only its start and its end in that file
(`Output`). The report comes back in a file too.

The `selfattn check` command starts a fresh interpreter (cli.py); `check()` forks, so that
any callable, a lambda or a layer trained a minute ago, is checked as it stands. A forked
child has only the thread that forked: a lock another thread of the caller held at that
moment (one writing to stderr) stays held there for ever, so the child writes through new
streams, its logging handlers too (`_handlers_to_fresh_streams`).
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib
import io
import json
import os
import re
import select
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from .report import Report

TAIL = 4096  # bytes of the child's output read back, for the line that says why it stopped
KEPT = 64 * 1024  # bytes of the target's output kept on disk from its start, and from its end
PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER = 1, 36  # linux/prctl.h
SHOWN = 8  # files named in the note; the rest are counted


@dataclass(frozen=True)
class Box:
    """The temporary folder of one check: the report, the child's output, its working folder;
    and the most memory the target may take (bytes, None for no limit)."""

    root: Path
    memory: int | None = None

    @property
    def report(self) -> Path:
        return self.root / "report.json"

    @property
    def log(self) -> Path:
        return self.root / "output.log"

    @property
    def killed(self) -> Path:
        """How many processes the target left running that the check killed, a line each
        from the worker and the supervisor."""
        return self.root / "killed"

    @property
    def work(self) -> Path:
        return self.root / "work"

    @property
    def tmp(self) -> Path:
        """The target's temporary folder (TMPDIR): torch's caches and the target's own go
        with the box, not into the caller's /tmp."""
        return self.root / "tmp"


@contextlib.contextmanager
def box(memory: int | None = None) -> Iterator[Box]:
    """A fresh Box, deleted with everything in it afterwards."""
    root = Path(tempfile.mkdtemp(prefix="selfattn-check-"))
    try:
        b = Box(root, memory)
        b.work.mkdir()
        b.tmp.mkdir()
        yield b
    finally:
        shutil.rmtree(root, ignore_errors=True)


def adopt_orphans(death: int = signal.SIGKILL) -> None:
    """Make this process the parent of its descendants' orphans, and have it sent `death` if
    its parent dies (a caller killed outright cannot kill it). Linux; elsewhere nothing."""
    with contextlib.suppress(OSError, AttributeError):
        prctl = ctypes.CDLL(None, use_errno=True).prctl
        prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        prctl(PR_SET_PDEATHSIG, death, 0, 0, 0)


@dataclass(frozen=True)
class Proc:
    """One process as /proc/PID/stat tells it."""

    pid: int
    ppid: int
    group: int
    session: int
    living: bool  # a zombie whose threads are all gone is not: it waits only to be collected


def processes() -> list[Proc]:
    """Every process in /proc (none where there is no /proc)."""
    found = []
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as f:
                    state, ppid, group, session = f.read().rpartition(b")")[2].split()[:4]
            except (OSError, ValueError):
                continue  # gone meanwhile
            pid = int(entry.name)
            living = state != b"Z" or _threads(pid) > 1
            found.append(Proc(pid, int(ppid), int(group), int(session), living))
    return found


def _threads(pid: int) -> int:
    """How many threads `pid` has: a process whose main thread exited shows `Z` while its other
    threads run on (hostile pass 6), and is as alive as any."""
    with contextlib.suppress(OSError, ValueError), open(f"/proc/{pid}/status", "rb") as f:
        for line in f:
            if line.startswith(b"Threads:"):
                return int(line.split()[1])
    return 0


def below(pid: int, table: list[Proc]) -> list[Proc]:
    """The processes below `pid` in `table`, zombies walked through (their children too)."""
    children: dict[int, list[Proc]] = {}
    for p in table:
        children.setdefault(p.ppid, []).append(p)
    found, todo = [], [pid]
    while todo:
        kids = children.get(todo.pop(), [])
        found += kids
        todo += [k.pid for k in kids]
    return found


def descendants(pid: int) -> list[int]:
    """The living processes below `pid`, read from /proc (none where there is no /proc)."""
    return [p.pid for p in below(pid, processes()) if p.living]


def end_all(pid: int, itself: bool = True) -> int:
    """Kill every process below `pid`, then `pid` if `itself`, then what is left of its
    group. Freeze, then kill: every process found is stopped (SIGSTOP: it forks no more),
    its whole group at once (a signal to a group reaches a child forked meanwhile), and the
    scan repeats until a round finds none new; then all are killed. A process that forks
    and exits every millisecond, its pid ever new, outran a scan-and-kill loop (hostile
    pass 6). The sessions and groups of the processes found are the target's too, and their
    members killed wherever they went; never the caller's own session or group. Returns how
    many living processes it found, `pid` itself not counted."""
    kill = getattr(signal, "SIGKILL", signal.SIGTERM)
    if itself and hasattr(signal, "SIGSTOP"):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGSTOP)
    leaders, found = _freeze(pid, {pid} if itself else set())
    for _ in range(100):  # all frozen: kill those still there (a zombie needs no second try)
        left = [p.pid for p in _theirs(pid, leaders) if p.living]
        _send(kill, left, leaders)
        if not left:
            break
        time.sleep(0.001)
    if itself:
        with contextlib.suppress(OSError):
            os.kill(pid, kill)
    if hasattr(os, "killpg") and (itself or pid != os.getpid()):  # not the caller's own group
        with contextlib.suppress(OSError):
            os.killpg(pid, kill)
    return len(found - {pid})


def _freeze(pid: int, leaders: set[int]) -> tuple[set[int], set[int]]:
    """Stop every process below `pid` or in a session or group of `leaders`, and the groups
    and sessions they are in, until a round finds none new; the leaders found, all told, and
    the living processes stopped."""
    stop = getattr(signal, "SIGSTOP", getattr(signal, "SIGKILL", signal.SIGTERM))
    ours = {os.getsid(0), os.getpgid(0)} if hasattr(os, "getsid") else set()
    leaders = leaders - ours
    seen: set[int] = set()
    for _ in range(1000):  # a round is a few ms; a hopper's group is stopped in the first
        found = _theirs(pid, leaders)
        new = [p.pid for p in found if p.living and p.pid not in seen]
        # a zombie's too: the hopper read as it exited, its child not yet read (pids wrap)
        fresh = {x for p in found for x in (p.session, p.group)} - ours - leaders
        if not new and not fresh:
            break
        leaders |= fresh
        _send(stop, new, fresh)
        seen.update(new)
    return leaders, seen


def _send(signum: int, pids: list[int], groups: set[int]) -> None:
    """`signum` to each of `pids` and to each group of `groups` (ids that are no group fail)."""
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signum)
    for group in groups if hasattr(os, "killpg") else ():
        with contextlib.suppress(OSError):
            os.killpg(group, signum)


def _theirs(pid: int, leaders: set[int]) -> list[Proc]:
    """The processes below `pid`, and those whose session or group is one of `leaders` (an
    id in use as a session's or group's is not given to another process meanwhile)."""
    table = processes()
    found = {p.pid: p for p in below(pid, table)}
    me = os.getpid()
    found.update(
        {p.pid: p for p in table if (p.session in leaders or p.group in leaders) and p.pid != me}
    )
    return list(found.values())


def wait(pid: int, limit: float) -> int | None:
    """Wait up to `limit` seconds for the forked child `pid` to end; its exit code (minus the
    signal that ended it, as subprocess says), or None."""
    deadline = time.monotonic() + limit
    fd = None
    with contextlib.suppress(AttributeError, OSError):
        fd = os.pidfd_open(pid)  # readable when the child ends: no polling
    try:
        while True:
            try:
                done, status = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:  # reaped already: SIGCHLD ignored in a thread of the caller
                done, status = (0, 0) if _running(pid) else (pid, 0)  # its report tells the rest
            left = deadline - time.monotonic()
            if done:
                return os.waitstatus_to_exitcode(status)
            if left <= 0:
                return None
            if fd is not None:
                select.select([fd], [], [], left if 0 < left < 60 else 60)  # inf: in steps
            else:
                time.sleep(0.02)
    finally:
        if fd is not None:
            os.close(fd)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        pass
    return True


@contextlib.contextmanager
def children_waited_for() -> Iterator[None]:
    """Within the block, the children this process forks can be waited for: a caller that
    ignores SIGCHLD has them reaped by the kernel, and waiting fails with ECHILD. Its handler
    is put back after (from the main thread only; elsewhere `wait` copes)."""
    sigchld = getattr(signal, "SIGCHLD", None)
    if sigchld is None or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(sigchld, signal.SIG_DFL)
    try:
        yield
    finally:
        signal.signal(sigchld, previous)


def reap(pid: int) -> None:
    """Collect a killed child, so no zombie is left behind."""
    with contextlib.suppress(ChildProcessError, OSError):
        os.waitpid(pid, 0)


def tail(path: Path) -> str:
    """The last TAIL bytes of a file, as text."""
    try:
        with open(path, "rb") as f:
            f.seek(max(0, f.seek(0, os.SEEK_END) - TAIL))
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


def written(folder: Path) -> list[str]:
    """The files under `folder`, as paths relative to it."""
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if not p.is_dir())


def wrote(folder: Path) -> str | None:
    """The note naming what the target wrote in its working folder, or None."""
    names = written(folder)
    if not names:
        return None
    more = f" and {len(names) - SHOWN} more" if len(names) > SHOWN else ""
    return (
        f"the target wrote {len(names)} file{'s' * (len(names) != 1)} in the empty temporary "
        f"folder it ran in, deleted after the check: {', '.join(names[:SHOWN])}{more}"
    )


def count_killed(b: Box, count: int) -> None:
    """Add `count` processes killed at the end to the box's tally."""
    if count:
        with contextlib.suppress(OSError), open(b.killed, "a", encoding="utf-8") as f:
            f.write(f"{count}\n")


def killed(b: Box) -> str | None:
    """The note saying how many processes the target left running, or None."""
    try:
        count = sum(int(n) for n in b.killed.read_text("utf-8").split())
    except (OSError, ValueError):
        return None
    if not count:
        return None
    were = "process was" if count == 1 else "processes were"
    return f"{count} {were} left running by the target and killed at the end of the check"


def collect(b: Box, name: str, code: int | None, limit: float, seconds: float) -> Report:
    """The report the child wrote, or one saying why there is none (`code`, its exit code,
    None if it overran `limit`), with the files it wrote."""
    text = ""
    with contextlib.suppress(OSError):
        text = b.report.read_text("utf-8")
    if code is None:
        report = Report(
            name,
            error=f"no answer within {limit:.0f} s: importing the file or calling the target hangs",
            seconds=seconds,
        )
    elif text:
        report = Report.from_dict(visible(json.loads(text)))
        if code != 0:  # the worker reported, but what stood over it did not end as it does
            report.error = (
                f"the process supervising the target ended with {_how(code)} while the "
                "target ran (did the target kill it?), so what the target started may have "
                "escaped it and the report it wrote is not trusted"
                + (f"; it said: {report.error}" if report.error else f" (verdict {report.verdict})")
            )
    else:
        last = visible((tail(b.log).strip().splitlines() or [""])[-1][:200])
        report = Report(
            name,
            error=f"the checking process stopped with {_how(code)} before reporting ("
            + ("did the target kill it, " if code < 0 else "did the target ")
            + "exit or crash the interpreter?)"
            + (f": {last}" if last else ""),
            seconds=seconds,
        )
    out_of_memory(report, b, code)
    report.notes += [note for note in (killed(b), wrote(b.work)) if note]
    return report


# what a terminal acts on rather than shows: C0 and C1 controls (ESC, CSI: a target's
# colours, cursor moves, a cleared screen or a rewritten title) and the bidi controls
_HIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def visible(said: Any) -> Any:
    """`said` (a string, or lists and dicts of them, as JSON gives) with every control
    character a terminal would act on written as an escape (ESC as `\\x1b`): what the
    target printed or raised reaches the user's terminal only as text."""
    if isinstance(said, str):
        return _HIDDEN.sub(lambda m: ascii(m[0])[1:-1], said)
    if isinstance(said, list):
        return [visible(x) for x in said]
    if isinstance(said, dict):
        return {k: visible(v) for k, v in said.items()}
    return said


def _how(code: int) -> str:
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"signal {signal.Signals(-code).name}"
        return f"signal {-code}"
    return f"status {code}"


def child(b: Box, run: Callable[[], Report], name: str) -> NoReturn:
    """The worker, below the supervisor in a session of its own: adopt
    orphans, work in the box's empty folder, write the report, kill what the target left
    running, and exit at once (a call that timed out may still hold a thread)."""
    try:
        adopt_orphans()
        limit_memory(b.memory)
        from .runner import Worker

        Worker.out_of_memory = 0  # a count the fork copied from the caller is not this check's
        os.chdir(b.work)
        os.environ["TMPDIR"] = tempfile.tempdir = str(b.tmp)  # the command set it already
        report = run()
    except BaseException as exc:  # the parent must get a report
        report = Report(name, error=f"internal error: {type(exc).__name__}: {exc}"[:500])
    calls_out_of_memory(report, b)
    try:
        b.report.write_text(report.to_json(), "utf-8")
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        count_killed(b, end_all(os.getpid(), itself=False))
        os._exit(0)


def calls_out_of_memory(report: Report, b: Box) -> None:
    """A note in `report` when calls ran out of memory under the limit and the check went on
    without them: its verdict was given on what ran (a float64 probe failing, float32 tried)."""
    from .runner import Worker

    if b.memory is not None and Worker.out_of_memory and report.error is None:
        report.notes.append(
            f"{Worker.out_of_memory} call(s) of the target ran out of memory under the limit of "
            f"{size_text(b.memory)} (--memory); the check went on without them"
        )


def limit_memory(size: int | None) -> None:
    """At most `size` bytes of address space for this process and what it starts (RLIMIT_AS),
    where the system has the limit; None: none."""
    if size is None:
        return
    import resource

    with contextlib.suppress(ValueError, OSError):  # above a hard limit: that one holds
        resource.setrlimit(resource.RLIMIT_AS, (size, size))


def out_of_memory(report: Report, b: Box, code: int | None) -> None:
    """Say so in `report` where a target under a memory limit failed as one out of memory
    does: MemoryError or std::bad_alloc; or ended by a signal (an abort, a fault), which
    may be that too."""
    said = report.error or ""
    if b.memory is None or report.error is None:
        return
    limit = f"the limit of {size_text(b.memory)} (--memory)"
    if "MemoryError" in said or "bad_alloc" in said:
        report.error = f"the target ran out of memory under {limit}: {said}"
    elif code is not None and code < 0:
        report.error = f"{said}; a target out of memory under {limit} can end so"


def size_text(size: int) -> str:
    """4294967296 -> "4G"."""
    for unit, scale in (("T", 1 << 40), ("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if size >= scale:
            return f"{size / scale:.3g}{unit}"
    return f"{size} bytes"


def supervised(b: Box, run: Callable[[], Report], name: str, caller: int) -> NoReturn:
    """In a process that leads its own session: adopt orphans, run the worker (`child`) in a
    forked process below, keep a bounded part of its output (`Output`), and once it ends kill
    everything left below this one, the orphans of a worker that exited included; then end
    as the worker ended. If `caller`, the process that waits for the report, dies first
    (SIGKILLed), the kernel sends SIGTERM here: everything below is killed and the box
    deleted, since no one else is left to do either."""
    signal.signal(signal.SIGTERM, lambda signum, _frame: _abandon(b, caller, signum))
    if hasattr(signal, "SIGCHLD"):  # the worker is waited for, whatever the caller ignored
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    adopt_orphans(death=signal.SIGTERM)
    if os.getppid() != caller:  # the caller died before the line above: no signal will come
        _abandon(b, caller, signal.SIGTERM)
    with contextlib.suppress(OSError):  # a core dump of either goes with the box, not here
        os.chdir(b.work)
    for stream in (sys.stdout, sys.stderr):  # nothing buffered is written twice
        with contextlib.suppress(Exception):
            stream.flush()
    out = Output(os.dup(1))
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the worker: it never returns
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the supervisor's handler
        os.close(read)
        os.dup2(write, 1)
        os.dup2(write, 2)
        os.close(write)
        child(b, run, name)
    os.close(write)
    code = 1
    try:
        code = out.until_exit(read, pid)
    finally:
        count_killed(b, end_all(os.getpid(), itself=False))
        out.drain(read)
        out.close()
        if code < 0:  # end by the same signal, so the caller reads what happened
            with contextlib.suppress(OSError, ValueError):
                signal.signal(-code, signal.SIG_DFL)
                os.kill(os.getpid(), -code)
        os._exit(code if code >= 0 else 128 - code)


def _abandon(b: Box, caller: int, signum: int) -> NoReturn:
    """SIGTERM in the supervisor: kill everything below it, delete the box if the caller is
    gone (it deletes it itself otherwise), and end as SIGTERM ends a process."""
    end_all(os.getpid(), itself=False)
    if os.getppid() != caller:
        shutil.rmtree(b.root, ignore_errors=True)
    with contextlib.suppress(OSError, ValueError):  # so a living caller reads "SIGTERM"
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
    os._exit(128 + signum)


class Output:
    """The target's output, read from a pipe as fast as it comes and kept in part: its first
    KEPT bytes written to the log as they come, its last KEPT bytes held here and written at
    the end after a line counting what was left out between. A target printing in a loop
    wrote 737 MB in 5 s into an uncapped log; reading never blocks it longer than a write
    to a full pipe does."""

    def __init__(self, log: int) -> None:
        self.log = log
        self.head = 0  # bytes written so far from the start
        self.last = bytearray()  # the latest bytes past the head, at most KEPT
        self.dropped = 0

    def take(self, data: bytes) -> None:
        if self.head < KEPT:
            first = data[: KEPT - self.head]
            self.head += len(first)
            with contextlib.suppress(OSError):
                os.write(self.log, first)
            data = data[len(first) :]
        self.last += data
        if len(self.last) > KEPT:
            self.dropped += len(self.last) - KEPT
            del self.last[: len(self.last) - KEPT]

    def until_exit(self, read: int, pid: int) -> int:
        """Read the pipe until the worker `pid` ends; its exit code."""
        ended = None
        with contextlib.suppress(AttributeError, OSError):
            ended = os.pidfd_open(pid)  # readable when the worker ends
        try:
            open_ = True
            while True:
                done, status = _waitpid(pid)
                if done:
                    return os.waitstatus_to_exitcode(status)
                watched = [f for f in (read if open_ else None, ended) if f is not None]
                ready = select.select(watched, [], [], 0.05 if ended is None else None)[0]
                if read in ready:
                    data = os.read(read, 1 << 16)
                    open_ = bool(data)  # the worker closed its output: wait for it alone
                    self.take(data)
        finally:
            if ended is not None:
                os.close(ended)

    def drain(self, read: int) -> None:
        """Read what is left in the pipe once every writer is dead (none is waited for)."""
        with contextlib.suppress(OSError):
            while select.select([read], [], [], 0)[0] and (data := os.read(read, 1 << 16)):
                self.take(data)
        os.close(read)

    def close(self) -> None:
        if self.dropped:
            note = f"\n[selfattn check: {self.dropped} bytes of output left out here]\n"
            self.last[:0] = note.encode()
        with contextlib.suppress(OSError):
            os.write(self.log, bytes(self.last))
            os.close(self.log)


def _waitpid(pid: int) -> tuple[int, int]:
    """os.waitpid(pid, WNOHANG), retried when interrupted."""
    while True:
        with contextlib.suppress(InterruptedError):
            return os.waitpid(pid, os.WNOHANG)


def forked(run: Callable[[], Report], name: str, limit: float, memory: int | None = None) -> Report:
    """`run()` in a forked child (see the module's docstring); killed after `limit` s, and
    given at most `memory` bytes (limit_memory)."""
    started = time.monotonic()
    _import_once_for_every_child()
    with box(memory) as b, children_waited_for():
        for stream in (sys.stdout, sys.stderr):  # nothing buffered is written twice
            with contextlib.suppress(Exception):
                stream.flush()
        caller = os.getpid()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child: it never returns
            try:
                os.setsid()
                _output_to(b.log)
            finally:
                supervised(b, run, name, caller)
        code = None
        try:
            code = wait(pid, limit)
        finally:
            end_all(pid, itself=code is None)
            if code is None:
                reap(pid)
        return collect(b, name, code, limit, time.monotonic() - started)


# what torch imports only on a first backward given a gradient (sympy, 0.6 s): imported in
# a child, it is imported again by every check's child, and a 0.04 s layer check took 0.48 s
LAZY_IMPORTS = {"torch": "torch.fx.experimental.symbolic_shapes"}


def _import_once_for_every_child() -> None:
    """Import here, once, what each forked child would otherwise import for itself."""
    for framework, lazy in LAZY_IMPORTS.items():
        if framework in sys.modules and lazy not in sys.modules:
            with contextlib.suppress(Exception):  # only time is at stake
                importlib.import_module(lazy)


def _output_to(log: Path) -> None:
    """In a forked child: stdin from /dev/null, stdout and stderr into `log`, and Python's
    streams new ones on them (a notebook's own streams talk to threads the child lacks)."""
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    out = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(out, 1)
    os.dup2(out, 2)
    sys.stdin = open(0, closefd=False)  # noqa: SIM115 - for the child's whole life
    caller = [sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__]
    fresh = open(1, "w", closefd=False, errors="backslashreplace")  # noqa: SIM115
    sys.stdout = sys.stderr = sys.__stdout__ = sys.__stderr__ = fresh
    _handlers_to_fresh_streams(caller, fresh)
    import faulthandler

    if faulthandler.is_enabled():  # pytest's, say: a crash's traceback into the log, not its own
        faulthandler.enable(sys.stderr)


# the caller's streams, held by the forked child until it exits: one freed there would be
# flushed, and wait forever for a lock a thread of the caller held at the fork
_ABANDONED: list[Any] = []


def _handlers_to_fresh_streams(caller: list[Any], fresh: Any) -> None:
    """In a forked child: every logging handler writes to a stream new in the child. A thread
    of the caller that was writing to a stream when the caller forked (a `print` or a log
    line to stderr) left that stream's lock held in the child by a thread that does not
    exist there, and a target logging through the handler waited for it forever (issue 48,
    hostile pass: "did not return within 3 s", 2 runs of 3). logging renews its handlers'
    own locks after a fork, not those of the streams they hold (`_fresh`)."""
    _ABANDONED.extend(caller)
    logging = sys.modules.get("logging")
    for ref in list(getattr(logging, "_handlerList", ())):
        handler = ref()
        stream = getattr(handler, "stream", None)
        if stream is None or stream is fresh:  # logging's last resort: sys.stderr, now fresh
            continue
        with contextlib.suppress(OSError, ValueError, LookupError, AttributeError, TypeError):
            handler.stream = _fresh(stream, fresh)  # pyright: ignore[reportOptionalMemberAccess]


def _fresh(stream: Any, fresh: Any) -> Any:
    """The stream a handler of `stream` writes to in the forked child: `fresh` for one of the
    caller's standard streams, else a new buffer and text layer on the same file below
    (an unbuffered file has no lock); AttributeError for a stream with none (a StringIO)."""
    if any(stream is s for s in _ABANDONED):
        return fresh
    new = io.TextIOWrapper(
        io.BufferedWriter(stream.buffer.raw),
        encoding=stream.encoding,
        errors=stream.errors,
        line_buffering=True,
    )
    _ABANDONED.extend([stream, new])  # neither freed: the new one would close the file
    return new


def fork_unsafe() -> str | None:
    """Why this process should not fork to check a target, or None."""
    if not hasattr(os, "fork"):
        return "this system cannot fork"
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_initialized():
        return "CUDA is in use here, and a forked child cannot use it"
    for module, what in (("jax", "JAX"), ("mlx.core", "MLX"), ("tensorflow", "TensorFlow")):
        if module in sys.modules:
            return f"{what} is imported here, and its threads would be missing in a forked child"
    return None
