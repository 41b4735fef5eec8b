"""`check` contains its target (issue 48): what it forks, detaches, prints, writes, changes
globally or exits with stays out of the caller, in the command and in the Python API."""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from selfattn.check import check
from selfattn.check import cli as check_cli

ROOT = Path(__file__).resolve().parents[2]
ATTENTION = """
import numpy as np

def softmax_attention(q, k, v):
    s = q @ k.T / np.sqrt(q.shape[-1])
    w = np.exp(s - s.max(-1, keepdims=True))
    return w / w.sum(-1, keepdims=True) @ v
"""


def softmax_attention(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
    s = q @ k.T / np.sqrt(q.shape[-1])
    w = np.exp(s - s.max(-1, keepdims=True))
    return w / w.sum(-1, keepdims=True) @ v


def target(tmp_path: Path, body: str) -> Path:
    """A target file: softmax attention, and `body` defining `attention` with it."""
    path = tmp_path / "target.py"
    path.write_text(ATTENTION + textwrap.dedent(body), "utf-8")
    return path


def command(path: Path, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "selfattn.check.cli", f"{path}:attention", "--budget", "20"],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=timeout,
    )


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie does not: it waits only to be collected)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_bytes().rpartition(b")")[2].split()[0]
    except (OSError, IndexError):
        return False
    return state != b"Z"


def gone_soon(pid: int, seconds: float = 5) -> bool:
    until = time.monotonic() + seconds
    while alive(pid) and time.monotonic() < until:
        time.sleep(0.05)
    return not alive(pid)


needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")


@needs_proc
def test_a_target_that_forks_is_checked_at_once_and_its_child_killed(tmp_path):
    pids = tmp_path / "pids"
    path = target(
        tmp_path,
        f"""
        import os, time
        def attention(q, k, v):
            pid = os.fork()
            if pid == 0:
                time.sleep(120)
                os._exit(0)
            with open({str(pids)!r}, "a") as f:
                f.write(f"{{pid}}\\n")
            return softmax_attention(q, k, v)
        """,
    )
    started = time.monotonic()
    result = command(path, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert time.monotonic() - started < 20  # 57 s before, waiting for the pipes to close
    left = [int(p) for p in pids.read_text().split()]
    assert left and all(gone_soon(p) for p in left)


@needs_proc
def test_a_detached_child_is_killed_even_after_a_successful_check(tmp_path):
    pids = tmp_path / "pids"
    path = target(
        tmp_path,
        f"""
        import subprocess
        started = []
        def attention(q, k, v):
            if not started:
                started.append(subprocess.Popen(["sleep", "120"], start_new_session=True))
                with open({str(pids)!r}, "w") as f:
                    f.write(str(started[0].pid))
            return softmax_attention(q, k, v)
        """,
    )
    result = command(path, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert gone_soon(int(pids.read_text()))


def test_a_chatty_target_costs_the_command_no_memory(tmp_path):
    path = target(
        tmp_path,
        """
        def attention(q, k, v):
            print("x" * 7_000_000)
            return softmax_attention(q, k, v)
        """,
    )
    # the command's own peak, in a process that runs nothing else
    probe = (
        "import sys; from selfattn.check.cli import main; "
        f"status = main([{str(path) + ':attention'!r}, '--budget', '20']); "
        "peak = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0]; "
        "print('PEAK', int(peak.split()[1]) // 1024, file=sys.stderr); sys.exit(status)"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120
    )
    assert result.returncode == 0, result.stdout + result.stderr[-2000:]
    peak = int(result.stderr.rpartition("PEAK ")[2])
    assert peak < 150, f"the command peaked at {peak} MB"  # 620 MB before


def test_what_the_target_writes_stays_out_of_the_callers_folder_and_is_named(tmp_path):
    path = target(
        tmp_path,
        """
        open("at_import.txt", "w").write("x")
        def attention(q, k, v):
            with open("out.npy", "wb") as f:
                f.write(b"0")
            return softmax_attention(q, k, v)
        """,
    )
    result = command(path, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["target.py"]
    assert "at_import.txt, out.npy" in " ".join(result.stdout.split())


def test_the_api_names_what_the_target_wrote_and_leaves_the_cwd_alone(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)

    def attention(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
        Path("scratch.txt").write_text("x")
        return softmax_attention(q, k, v)

    report = check(attention)
    assert report.ok and list(tmp_path.iterdir()) == []
    assert any("scratch.txt" in n for n in report.notes), report.notes


LEAVES_A_TEMPORARY_FILE = """
import os, tempfile
def attention(q, k, v):
    with open(os.path.join(tempfile.gettempdir(), "left-behind.txt"), "w") as f:
        f.write("x")
    return softmax_attention(q, k, v)
"""


def test_what_the_target_puts_in_the_temporary_folder_goes_with_the_check(tmp_path):
    """torch puts its caches there (torchinductor_<user>, made when torch._dynamo is
    imported), and so may any target: all of it goes in the check's own folder."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    path = target(tmp_path, LEAVES_A_TEMPORARY_FILE)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp)}
    probe = "import torch._dynamo" if importlib.util.find_spec("torch") else "pass"
    path.write_text(probe + "\n" + path.read_text("utf-8"), "utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "selfattn.check.cli", f"{path}:attention", "--budget", "20"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert list(tmp.iterdir()) == []


def test_the_api_child_puts_its_temporary_files_in_the_checks_folder(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    namespace: dict[str, Any] = {"softmax_attention": softmax_attention}
    exec(LEAVES_A_TEMPORARY_FILE, namespace)
    assert check(namespace["attention"]).ok
    assert list(tmp_path.iterdir()) == []


def test_os_exit_in_a_target_ends_only_the_check():
    report = check(lambda q, k, v: os._exit(0))
    assert report.verdict == "error" and "before reporting" in (report.error or "")


def test_a_hung_call_leaves_nothing_running_after_the_check():
    spins = [0]
    stop = threading.Event()

    def spin(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
        while not stop.is_set():
            spins[0] += 1  # counts only where it runs in this process
        return v

    try:
        report = check(spin, timeout=0.3, budget=2)
        assert report.verdict == "error"
        before = spins[0]
        time.sleep(0.3)
        assert spins[0] == before, "a call that timed out still spins in the caller"
    finally:
        stop.set()


# -- each global the Python API leaked into its caller ----------------------------------


def torch_or_skip() -> Any:
    return pytest.importorskip("torch")


def _dtype() -> tuple[Callable[[], None], Callable[[], Any]]:
    torch = torch_or_skip()
    return lambda: torch.set_default_dtype(torch.float64), torch.get_default_dtype


def _deterministic() -> tuple[Callable[[], None], Callable[[], Any]]:
    torch = torch_or_skip()
    return (
        lambda: torch.use_deterministic_algorithms(True),
        torch.are_deterministic_algorithms_enabled,
    )


def _torch_rng() -> tuple[Callable[[], None], Callable[[], Any]]:
    torch = torch_or_skip()
    return lambda: torch.rand(100), lambda: torch.get_rng_state().tolist()


def _print_options() -> tuple[Callable[[], None], Callable[[], Any]]:
    torch = torch_or_skip()
    return (
        lambda: torch.set_printoptions(precision=1, sci_mode=True),
        lambda: dict(vars(torch._tensor_str.PRINT_OPTS)),
    )


def _cudnn_benchmark() -> tuple[Callable[[], None], Callable[[], Any]]:
    torch = torch_or_skip()
    return (
        lambda: setattr(torch.backends.cudnn, "benchmark", True),
        lambda: torch.backends.cudnn.benchmark,
    )


def _numpy_seed() -> tuple[Callable[[], None], Callable[[], Any]]:
    return lambda: np.random.seed(3), lambda: np.random.get_state()[1].tolist()


def _cwd() -> tuple[Callable[[], None], Callable[[], Any]]:
    return lambda: os.chdir("/"), os.getcwd


def _switch(
    where: str, name: str, value: Any
) -> Callable[[], tuple[Callable[[], None], Callable[[], Any]]]:
    """A switch of torch.backends (`where`, dotted) the target sets to `value`."""

    def make() -> tuple[Callable[[], None], Callable[[], Any]]:
        torch = torch_or_skip()
        owner = functools.reduce(getattr, where.split("."), torch.backends)
        return lambda: setattr(owner, name, value), lambda: getattr(owner, name)

    return make


def _num_threads() -> tuple[Callable[[], None], Callable[[], Any]]:
    torch = torch_or_skip()
    return lambda: torch.set_num_threads(3), torch.get_num_threads


def _switch_interval() -> tuple[Callable[[], None], Callable[[], Any]]:
    return lambda: sys.setswitchinterval(0.02), sys.getswitchinterval


def _recursion_limit() -> tuple[Callable[[], None], Callable[[], Any]]:
    return lambda: sys.setrecursionlimit(sys.getrecursionlimit() + 77), sys.getrecursionlimit


def _warnings_filters() -> tuple[Callable[[], None], Callable[[], Any]]:
    return lambda: warnings.simplefilter("error", UserWarning), lambda: list(warnings.filters)


GLOBALS = {
    "torch default dtype": _dtype,
    "torch deterministic mode": _deterministic,
    "torch RNG state": _torch_rng,
    "torch print options": _print_options,
    "cudnn.benchmark": _cudnn_benchmark,
    "numpy's seed": _numpy_seed,
    "working directory": _cwd,
    "mkldnn.enabled": _switch("mkldnn", "enabled", False),
    "cuda.matmul.allow_tf32": _switch("cuda.matmul", "allow_tf32", True),
    "cudnn.allow_tf32": _switch("cudnn", "allow_tf32", False),
    "cudnn.enabled": _switch("cudnn", "enabled", False),
    "torch thread count": _num_threads,
    "switch interval": _switch_interval,
    "recursion limit": _recursion_limit,
    "warnings filters": _warnings_filters,
}


@pytest.mark.parametrize("in_process", [False, True], ids=["child", "in-process"])
@pytest.mark.parametrize("what", list(GLOBALS))
def test_a_global_the_target_changes_does_not_reach_the_caller(what, in_process, monkeypatch):
    change, read = GLOBALS[what]()
    monkeypatch.chdir(Path.cwd())  # whatever happens, the next test starts where this one did
    before = read()

    def attention(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
        change()
        return softmax_attention(q, k, v)

    report = check(attention, in_process=in_process)
    assert report.ok, str(report)
    assert read() == before, what


def test_the_cli_contains_a_target_on_the_command_line(tmp_path):
    """The command's exit status is the report's, not the target's `os._exit` status."""
    path = target(
        tmp_path,
        """
        import os
        def attention(q, k, v):
            os._exit(0)
        """,
    )
    result = command(path, tmp_path)
    assert result.returncode == 2 and "before reporting" in result.stdout
    assert check_cli.SLACK > 0


@needs_proc
@pytest.mark.parametrize(("signum", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_the_command_stopped_by_a_signal_kills_its_child_and_deletes_its_folder(
    tmp_path, signum, status
):
    pids = tmp_path / "pids"
    path = target(
        tmp_path,
        f"""
        import os, time
        def attention(q, k, v):
            with open({str(pids)!r}, "w") as f:
                f.write(str(os.getpid()))
            time.sleep(120)
        """,
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp_path / "tmp")}
    (tmp_path / "tmp").mkdir()
    proc = subprocess.Popen(
        [sys.executable, "-m", "selfattn.check.cli", f"{path}:attention", "--timeout", "100"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        until = time.monotonic() + 30
        while not pids.exists() and time.monotonic() < until:
            time.sleep(0.05)
        assert pids.exists(), "the target was never called"
        time.sleep(0.1)
        proc.send_signal(signum)
        assert proc.wait(timeout=20) == status
        said = proc.stderr.read() if proc.stderr else ""
        # one line saying so, never a traceback, never a silent exit
        assert "Traceback" not in said and ("interrupted" in said or "stopped by a signal" in said)
    finally:
        proc.kill()
        proc.wait()
        if proc.stderr:
            proc.stderr.close()
    assert gone_soon(int(pids.read_text()))
    assert list((tmp_path / "tmp").iterdir()) == []


def test_an_endless_budget_is_waited_for_in_steps():
    import math

    assert check(softmax_attention, budget=math.inf).ok


def test_where_forking_is_unsafe_the_check_runs_here_and_says_so(monkeypatch):
    from selfattn.check import contain

    monkeypatch.setattr(contain, "fork_unsafe", lambda: "JAX is imported here")
    spins = []
    report = check(lambda q, k, v: spins.append(1) or softmax_attention(q, k, v))
    assert report.ok and spins  # called in this process
    assert any("not in a child (JAX is imported here)" in n for n in report.notes)


def test_in_process_puts_back_the_umask_and_the_recursion_limit():
    """Hostile pass 3: a target's umask and recursion limit leaked to the caller."""
    import os
    import sys

    from selfattn.check.restore import as_found

    mask, depth = os.umask(0o022), sys.getrecursionlimit()
    os.umask(mask)
    try:
        with as_found():
            os.umask(0o777)
            sys.setrecursionlimit(50 + depth)
        assert (os.umask(mask), sys.getrecursionlimit()) == (mask, depth)
    finally:
        os.umask(mask)
        sys.setrecursionlimit(depth)


# -- hostile pass 4: an orphan the checking process leaves when it exits ----------------

ORPHAN_THEN_EXIT = """
import os, time
def attention(q, k, v):
    pid = os.fork()
    if pid == 0:  # detached from the check's session, then orphaned by the exit below
        os.setsid()
        with open({pids!r} + ".tmp", "w") as f:
            f.write(str(os.getpid()))
        os.rename({pids!r} + ".tmp", {pids!r})
        time.sleep(120)
        os._exit(0)
    while not os.path.exists({pids!r}):
        time.sleep(0.01)
    os._exit(0)
"""


@needs_proc
def test_the_command_kills_a_setsid_child_orphaned_by_the_targets_exit(tmp_path):
    pids = tmp_path / "pids"
    path = target(tmp_path, ORPHAN_THEN_EXIT.format(pids=str(pids)))
    result = command(path, tmp_path)
    assert result.returncode == 2 and "before reporting" in result.stdout, result.stdout
    assert gone_soon(int(pids.read_text())), "the orphan outlived the check (under PID 1)"


@needs_proc
def test_the_api_kills_a_setsid_child_orphaned_by_the_targets_exit(tmp_path):
    pids = tmp_path / "pids"
    namespace: dict[str, Any] = {"softmax_attention": softmax_attention}
    exec(ORPHAN_THEN_EXIT.format(pids=str(pids)), namespace)
    report = check(namespace["attention"])
    assert report.verdict == "error" and "before reporting" in (report.error or "")
    assert gone_soon(int(pids.read_text())), "the orphan outlived the check (under PID 1)"
    assert not subreaper(), "the caller became a child subreaper silently"


def subreaper() -> bool:
    """Whether this process adopts its descendants' orphans (Linux's PR_GET_CHILD_SUBREAPER)."""
    import ctypes

    flag = ctypes.c_int(0)
    ctypes.CDLL(None, use_errno=True).prctl(37, ctypes.byref(flag), 0, 0, 0)
    return bool(flag.value)


def test_a_call_cut_short_by_the_checks_time_limit_names_that_limit():
    """Hostile pass 4: a slow (3 GB) target's last call was blamed on the per-call timeout."""
    from selfattn.check.runner import Runner, Timeout

    def slow(q: np.ndarray) -> np.ndarray:
        time.sleep(1)
        return q

    runner = Runner(slow, timeout=10, budget=0.3)
    with pytest.raises(Timeout, match=r"the check's time limit \(0\.3 s in all\) ran out") as e:
        runner(np.zeros((2, 2)))
    assert "each call may take 10 s" in str(e.value)
    runner = Runner(slow, timeout=0.2, budget=30)
    with pytest.raises(Timeout, match=r"did not return within 0\.2 s, the time each call"):
        runner(np.zeros((2, 2)))


def test_a_target_that_crashes_the_interpreter_is_named_by_its_signal():
    """Found in the hostile pass over the supervisor: it killed its own group, itself
    included, so every crash read as SIGKILL."""
    import ctypes

    report = check(lambda q, k, v: ctypes.string_at(0))
    assert "signal SIGSEGV" in (report.error or ""), report.error


@pytest.mark.parametrize("timeout", ["-1", "0", "nan", "soon"])
def test_a_time_limit_that_is_no_positive_number_of_seconds_is_refused(tmp_path, timeout, capsys):
    path = target(tmp_path, "def attention(q, k, v):\n    return v\n")
    assert check_cli.main([f"{path}:attention", "--timeout", timeout]) == 2
    assert "--timeout" in capsys.readouterr().err


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="needs torch")
def test_what_torch_imports_on_a_first_backward_is_imported_once_in_the_caller():
    """torch imports sympy (0.6 s) on the first backward given a gradient: left to the forked
    child, every check imported it again, and a 0.04 s layer check took 0.48 s."""
    code = textwrap.dedent(
        """
        import sys, torch
        from selfattn.check import check
        layer = torch.nn.MultiheadAttention(8, 2, batch_first=True)
        check(lambda x: layer(x, x, x)[0], kind="layer")
        print("torch.fx.experimental.symbolic_shapes" in sys.modules)
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert out.stdout.strip().splitlines()[-1:] == ["True"], out.stderr[-2000:]


LEAVES_TWO_RUNNING = """
import os, subprocess, time
started = []
def attention(q, k, v):
    if not started:
        started.append(subprocess.Popen(["sleep", "120"], start_new_session=True))
        pid = os.fork()
        if pid == 0:
            time.sleep(120)
            os._exit(0)
        started.append(pid)
    return softmax_attention(q, k, v)
"""


@needs_proc
def test_the_report_counts_the_processes_left_running_and_killed(tmp_path):
    """Low 10 (issue 48): the processes a target leaves running are killed, and said so, in
    the command's text and in the Python API's report."""
    said = "2 processes were left running by the target and killed at the end of the check"
    result = command(target(tmp_path, LEAVES_TWO_RUNNING), tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert said in " ".join(result.stdout.split())
    namespace: dict[str, Any] = {"softmax_attention": softmax_attention}
    exec(LEAVES_TWO_RUNNING, namespace)
    report = check(namespace["attention"], layout="nd")
    assert report.ok and said in report.notes, report
    assert not any("killed" in n for n in check(softmax_attention, layout="nd").notes)


TAKES_3_GB = """
def attention(q, k, v):
    big = np.ones(3 << 27)  # 3 GB of float64
    return softmax_attention(q, k, v) + big[0] * 0
"""


def address_space() -> int:
    """This process's address space in bytes (VmSize), or 0 where /proc does not say."""
    with contextlib.suppress(OSError, StopIteration):
        status = Path("/proc/self/status").read_text().splitlines()
        return int(next(x for x in status if x.startswith("VmSize:")).split()[1]) * 1024
    return 0


@needs_proc
def test_a_target_past_the_memory_limit_is_said_to_be(tmp_path):
    """Low 12 (issue 48): --memory limits the target's address space, and the report says
    that the target ran out of it."""
    path = target(tmp_path, TAKES_3_GB)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    args = [sys.executable, "-m", "selfattn.check.cli", f"{path}:attention", "--layout", "nd"]
    result = subprocess.run(
        [*args, "--memory", "1G"], capture_output=True, text=True, env=env, timeout=120
    )
    said = " ".join(result.stdout.split())
    assert result.returncode == 2 and "ran out of memory under the limit of 1G" in said, said
    namespace: dict[str, Any] = {"softmax_attention": softmax_attention, "np": np}
    exec(TAKES_3_GB, namespace)
    report = check(namespace["attention"], layout="nd", memory=address_space() + (1 << 30))
    assert "ran out of memory under the limit" in (report.error or ""), report
    assert check(softmax_attention, layout="nd", memory=address_space() + (1 << 30)).ok


FLOAT64_TAKES_3_GB = """
def attention(q, k, v):
    if np.asarray(q).dtype == np.float64:  # a float64 workspace: 3 GB
        np.ones(3 << 27)
    return softmax_attention(q, k, v)
"""


def test_calls_out_of_memory_under_the_limit_are_named_though_the_check_goes_on():
    """Hostile pass 7: float64 calls failing with MemoryError under --memory made the check go
    on in float32 and say "ok" with no word of memory."""
    namespace: dict[str, Any] = {"softmax_attention": softmax_attention, "np": np}
    exec(FLOAT64_TAKES_3_GB, namespace)
    report = check(namespace["attention"], layout="nd", memory=address_space() + (1 << 30))
    said = " ".join(report.notes)
    assert "ran out of memory under the limit" in said or "out of memory" in (report.error or "")
    assert "ran out of memory" not in " ".join(check(softmax_attention, layout="nd").notes)


def test_a_count_of_memory_errors_the_caller_holds_is_not_the_checks():
    """The fork copies the caller's count of calls out of memory: it is no call of this check."""
    from selfattn.check.runner import Worker

    held = Worker.out_of_memory
    Worker.out_of_memory = 5
    try:
        report = check(softmax_attention, layout="nd", memory=address_space() + (1 << 30))
    finally:
        Worker.out_of_memory = held
    assert report.ok and not any("out of memory" in n for n in report.notes), report.notes
