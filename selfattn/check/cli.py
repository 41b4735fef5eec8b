"""`selfattn check FILE.py:NAME [--json] [--layout L] [--arg N=V] [--memory SIZE]`: in a child.

The child, a fresh interpreter, imports FILE.py and runs `check`; it writes the report as
JSON to a file, so what the target prints cannot mix with it. It is contained as contain.py
says: a session of its own, every process the target starts killed at the end, an empty
working folder, its output in a file. If the child hangs or dies, the parent kills it and
reports exit status 2. `--memory` limits the address space of the process that runs the
target (RLIMIT_AS), and the report says when the target ran out of it. Nothing here prints
a traceback.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import importlib.util
import inspect
import os
import re
import subprocess
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..signals import Stopped, ended_by_signals
from . import BUDGET, SLACK, TIMEOUT, check, contain
from .frameworks import LAYOUTS, summarize
from .report import Report
from .runner import TargetError

PACKAGE_ROOT = Path(__file__).resolve().parents[2]  # the folder holding selfattn/


def seconds(text: str) -> float:
    """A time limit from the command line: a positive number of seconds (-1, 0, nan refused)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value > 0:  # nan too
        raise argparse.ArgumentTypeError(f"{text} seconds: a time limit must be more than 0")
    return value


UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
LEAST = 64 << 20  # bytes: Python with numpy starts in less, not in much less


def size(text: str) -> int:
    """A memory size from the command line: 4G, 512M, 1.5G (binary units), or bytes."""
    found = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([KMGT]?)(?:i?B)?\s*", text, re.IGNORECASE)
    if found is None:
        raise argparse.ArgumentTypeError(f"{text!r} is no size: write it as 4G, 512M or 2.5G")
    value = int(float(found[1]) * UNITS[found[2].upper()])
    if value < LEAST:
        raise argparse.ArgumentTypeError(
            f"{text} is too little memory to start Python: 64M at least"
        )
    return value


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="selfattn check",
        description="Probe an attention kernel (q, k, v[, causal | mask], in any layout), a "
        "layer with its own projections (hidden states x -> x: nanoGPT's CausalSelfAttention, "
        "timm's Attention, nn.MultiheadAttention) or a model (token ids -> vectors) for the "
        "bugs that never raise.",
        epilog="exit status: 0 no error found, 1 an error found, 2 the target could not be "
        "loaded or called",
    )
    p.add_argument("target", help="FILE.py:NAME, a function (or callable object) in FILE.py")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument(
        "--kind", choices=("kernel", "layer", "model"), help="skip guessing from the signature"
    )
    p.add_argument(
        "--layout",
        choices=tuple(LAYOUTS),
        help="how each (n, d) input is shaped: "
        + ", ".join(f"{k} {v}" for k, v in LAYOUTS.items())
        + " (default: probed, in that order)",
    )
    p.add_argument(
        "--arg",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an extra argument for every call, e.g. --arg scaling=0.125 --arg module=none; "
        "VALUE is a Python literal (none, true and false also work)",
    )
    p.add_argument(
        "--timeout", type=seconds, default=TIMEOUT, help=f"seconds per call (default {TIMEOUT:g})"
    )
    p.add_argument(
        "--memory",
        type=size,
        metavar="SIZE",
        help="the most memory the target may map, e.g. 4G (its address space, RLIMIT_AS: "
        "torch alone maps some GB); default no limit",
    )
    p.add_argument("--budget", type=float, default=BUDGET, help=argparse.SUPPRESS)
    p.add_argument("--worker", help=argparse.SUPPRESS)  # internal: where the child writes
    p.add_argument("--caller", type=int, default=0, help=argparse.SUPPRESS)  # internal: its pid
    return p


def main(argv: list[str] | None = None) -> int:
    """Run `selfattn check` with `argv` (without the program name); return the exit status."""
    try:
        args = parser().parse_args(argv)
    except SystemExit as exc:  # --help, or a usage error already printed by argparse
        return exc.code if isinstance(exc.code, int) else 2
    try:
        parse_args(args.arg)
    except ValueError as exc:
        print(f"selfattn check: {exc}", file=sys.stderr)
        return 2
    if args.worker:
        work(args)  # does not return
    try:
        with ended_by_signals():  # SIGTERM and SIGHUP, too, kill the child and all it started
            report = run_child(args)
    except KeyboardInterrupt:  # the child is gone already (run_child's finally)
        print("selfattn check: interrupted", file=sys.stderr)
        return 130
    except Stopped as stop:  # SIGTERM or SIGHUP: as Ctrl-C, said, not a silent exit
        said = "selfattn check: stopped by a signal; the target and all it started are gone"
        print(said, file=sys.stderr)
        return stop.code if isinstance(stop.code, int) else 143
    try:
        print(report.to_json() if args.json else report.to_text(), flush=True)
    except BrokenPipeError:  # `selfattn check ... | head`: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return report.exit_status


def run_child(args: argparse.Namespace) -> Report:
    """Check the target in a child process, killed with all it started when it ends or
    overruns the budget."""
    env = dict(os.environ)
    if importlib.util.find_spec("torch") is not None:  # a Keras layer is read from torch's calls
        env.setdefault("KERAS_BACKEND", "torch")
    env["PYTHONPATH"] = os.pathsep.join([str(PACKAGE_ROOT), *filter(None, [env.get("PYTHONPATH")])])
    limit = args.budget + SLACK
    started = time.monotonic()
    with contain.box(args.memory) as box:
        env["TMPDIR"] = str(box.tmp)  # what torch makes there as it is imported goes with it
        cmd = [sys.executable, "-m", "selfattn.check.cli", args.target, "--worker", str(box.root)]
        cmd += ["--caller", str(os.getpid())]
        cmd += ["--timeout", str(args.timeout), "--budget", str(args.budget)]
        cmd += ["--kind", args.kind] if args.kind else []
        cmd += ["--memory", str(args.memory)] if args.memory else []
        cmd += ["--layout", args.layout] if args.layout else []
        cmd += [f"--arg={a}" for a in args.arg]
        try:
            with open(box.log, "wb") as log:
                proc = subprocess.Popen(
                    cmd,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,  # its group is everything it starts
                )
        except OSError as exc:
            return Report(args.target, error=f"could not run the check: {summarize(exc)}")
        code = None
        try:
            code = proc.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            pass
        finally:
            contain.end_all(proc.pid, itself=code is None)
            if code is None:
                proc.wait()
        try:
            return contain.collect(box, args.target, code, limit, time.monotonic() - started)
        except (ValueError, KeyError) as exc:
            return Report(args.target, error=f"could not read the report: {summarize(exc)}")


def work(args: argparse.Namespace) -> None:
    """The child: import the target, check it in an empty working folder, write the JSON
    report, kill what the target started, and exit at once."""
    box = contain.Box(Path(args.worker), args.memory)
    target = _absolute(args.target)  # the working folder changes before the import

    def run() -> Report:
        with contextlib.redirect_stdout(sys.stderr):  # one stream, into the log
            try:
                _interpret_triton(target)
                fn, _, imp = load(target)
                return check(
                    fn,
                    kind=args.kind,
                    layout=args.layout,
                    args=parse_args(args.arg),
                    timeout=args.timeout,
                    budget=args.budget,
                    name=args.target,
                    import_line=imp,
                    in_process=True,  # this is the child
                )
            except TargetError as exc:
                return Report(args.target, error=str(exc))
            except BaseException as exc:
                return Report(args.target, error=f"internal error: {summarize(exc)}")

    contain.supervised(box, run, args.target, args.caller or os.getppid())


def _absolute(target: str) -> str:
    """FILE.py:NAME with FILE made absolute, as seen from the folder the command ran in."""
    path, sep, name = target.rpartition(":")
    if not sep or not path:
        return target  # load() says what is wrong
    return f"{Path(path).expanduser().absolute()}:{name}"


def _interpret_triton(target: str) -> None:
    """Before the target's file is imported: a file that uses Triton, on a machine without a
    GPU, gets its `@triton.jit` kernels made for Triton's interpreter (interpret.py)."""
    path = Path(target.rpartition(":")[0]).expanduser()
    try:
        source = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return  # load() says what is wrong with the path
    # TRITON_INTERPRET=1 set already (as Triton's docs suggest) still needs the driver's
    # stand-in: the interpreter replaces the kernels, not the launcher's questions to the driver
    if "triton" not in source or os.environ.get("TRITON_INTERPRET", "1") != "1":
        return
    try:
        import torch  # pyright: ignore[reportMissingImports]
    except ImportError:
        return
    if not torch.cuda.is_available():
        from .interpret import on_cpu

        on_cpu()  # the interpreter, and a stand-in for the driver the launcher asks


WORDS = {"none": None, "null": None, "true": True, "false": False}


def parse_args(pairs: list[str]) -> dict[str, Any]:
    """`["scaling=0.125", "module=none"]` -> {"scaling": 0.125, "module": None}.

    A value that is not a Python literal stays a string; ValueError for a pair without `=`.
    """
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep or not key.strip().isidentifier():
            raise ValueError(f"--arg takes NAME=VALUE, got {pair!r}")
        text = text.strip()
        if text.lower() in WORDS:
            out[key.strip()] = WORDS[text.lower()]
            continue
        try:
            out[key.strip()] = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            out[key.strip()] = text
    return out


def load(target: str) -> tuple[Callable[..., Any], str, str]:
    """Import FILE.py and return (the object NAME, NAME, an import line for reproductions)."""
    path_text, sep, name = target.rpartition(":")
    if not sep or not path_text or not name:
        raise TargetError(f"expected FILE.py:NAME, got {target!r}")
    path = Path(path_text).expanduser().resolve()
    if not path.is_file():
        raise TargetError(f"no such file: {path_text}")
    stem = path.stem if path.stem.isidentifier() else "target"
    modname = stem if stem not in sys.modules else f"_selfattn_target_{stem}"
    module = _imported(path, modname)
    obj = _named_in(module, name, path)
    if inspect.isclass(obj):
        raise TargetError(f"{name} is a class: point at a function or an instance")
    if not callable(obj):
        raise TargetError(f"{name} is not callable ({type(obj).__name__})")
    return obj, name, f"from {stem} import {name.split('.')[0]}  # run next to {path.name}"


def _imported(path: Path, modname: str) -> Any:
    """The module FILE.py, imported as `modname` beside its neighbours, or TargetError."""
    sys.path.insert(0, str(path.parent))  # so the file can import its neighbours
    spec = importlib.util.spec_from_file_location(modname, path)
    if spec is None or spec.loader is None:
        raise TargetError(f"cannot import {path.name} as Python")
    module = importlib.util.module_from_spec(spec)
    sys.modules[modname] = module
    try:
        spec.loader.exec_module(module)
    except BaseException as exc:
        why = f"{summarize(exc)}{_where(exc, path)}"
        raise TargetError(f"{path.name} does not import: {why}") from None
    return module


def _named_in(module: Any, name: str, path: Path) -> Any:
    """The object `name` (dotted: `attn.forward`) in `module`, or TargetError listing what
    the file defines."""
    obj: Any = module
    for part in name.split("."):
        if not hasattr(obj, part):
            defined = sorted(
                k for k, v in vars(module).items() if callable(v) and not k.startswith("_")
            )
            raise TargetError(
                f"{path.name} has no {name!r}; it defines: {', '.join(defined[:12]) or 'nothing'}"
            )
        obj = getattr(obj, part)
    return obj


def _where(exc: BaseException, path: Path) -> str:
    """` (line N)` for the deepest frame of the traceback inside the target file."""
    if isinstance(exc, SyntaxError):
        return ""  # its message already names the line
    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if Path(frame.filename).resolve() == path:
            line = frame.lineno
    return f" (line {line})" if line else ""


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
