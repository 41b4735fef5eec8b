"""The `selfattn` command: a thin dispatcher that imports each command's module lazily.

Ctrl-C at any moment once this module is loaded ends the command with one line and status
130, never a traceback: the imports too (argparse's included) are made inside `main`. One
in the interpreter's own start-up, before this module runs, is Python's to report.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (see above)

if TYPE_CHECKING:
    import argparse


def _claims(args: argparse.Namespace) -> int:
    from .claims_table import print_claims

    return print_claims(args.head)


def _fit(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .fit import continue_from, fit, write_head
    from .head import load_head

    try:
        import scipy  # noqa: F401
    except ImportError:
        print("selfattn fit needs scipy: pip install 'selfattn[fit]'", file=sys.stderr)
        return 2
    out = Path(args.out)
    if not out.parent.is_dir():
        print(
            f"selfattn fit: {out.parent} is not a folder to write head.json into", file=sys.stderr
        )
        return 2
    if not args.seconds > 0:
        print("selfattn fit: --seconds must be positive", file=sys.stderr)
        return 2
    try:
        if args.continue_from:
            head = continue_from(load_head(args.continue_from), steps=args.steps)
        else:
            head = fit(seconds=args.seconds, seed=args.seed)
        write_head(head, out)
    except (RuntimeError, OSError, ValueError) as err:
        print(f"selfattn fit: {err}", file=sys.stderr)
        return 1
    print(f"wrote {args.out}")
    return 0


def _build(args: argparse.Namespace) -> int:
    # nothing but signals.py, which is loaded by now: a signal can come while site.build is
    # half imported, and a handler importing it again fails with a traceback
    from .signals import SWAPPED, Stopped, ended_by_signals

    try:
        with ended_by_signals():  # SIGTERM and SIGHUP, too, delete the half-written build
            return _build_now(args)
    except (KeyboardInterrupt, Stopped) as stop:  # the build has deleted what it wrote
        where = (
            f"{args.out} holds the new build, which was in place when it came"
            if SWAPPED in getattr(stop, "__notes__", []) or getattr(args, "built", False)
            else f"{args.out} is as it was"
        )
        how = "interrupted" if isinstance(stop, KeyboardInterrupt) else "stopped by a signal"
        print(f"selfattn build: {how}; {where}", file=sys.stderr)
        return stop.code if isinstance(stop, Stopped) and isinstance(stop.code, int) else 130


def _build_now(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .signals import settled
    from .site.build import BuildError, OutputRefused, build

    try:
        built = build(Path(args.out), force=args.force)
    except OutputRefused as err:
        print(f"selfattn build: {err}", file=sys.stderr)
        return 2
    except (OSError, BuildError, ValueError) as err:
        print(f"selfattn build: cannot build into {args.out}: {err}", file=sys.stderr)
        return 1
    args.built = True
    settled()  # the build is in place: a signal now would only make the report below false
    print(f"built the article into {args.out}")
    for note in built.kept:  # paths the build did not write, found in the old copy: never lost
        print(f"selfattn build: {note}", file=sys.stderr)
    return 0


def _serve(args: argparse.Namespace) -> int:
    from .site.serve import serve

    return serve(host=args.host, port=args.port, open_browser=args.open)


def _check(argv: list[str]) -> int:
    from .check.cli import main as check_main

    return check_main(argv)


def parser() -> argparse.ArgumentParser:
    import argparse
    from pathlib import Path

    top = argparse.ArgumentParser(
        prog="selfattn", description="Self-attention, explained and checked."
    )
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")

    claims = commands.add_parser("claims", help="check every number the article states")
    claims.add_argument("--head", help="a head.json to check instead of the packaged one")
    claims.set_defaults(run=_claims)

    fit = commands.add_parser("fit", help="fit a two-decimal head that makes every claim hold")
    fit.add_argument("--out", default=str(Path(__file__).parent / "head.json"))
    fit.add_argument("--seconds", type=float, default=75.0, help="seconds of random starts")
    fit.add_argument("--seed", type=int, default=1)
    fit.add_argument(
        "--continue-from",
        metavar="HEAD_JSON",
        help="walk this head (every number holding) until the pictures' conditions hold too",
    )
    fit.add_argument("--steps", type=int, default=20, help="steps of the walk (--continue-from)")
    fit.set_defaults(run=_fit)

    build = commands.add_parser("build", help="build the article as a static folder")
    build.add_argument(
        "out", help="the folder to write: new, empty, or an earlier build (replaced whole)"
    )
    build.add_argument(
        "--force",
        action="store_true",
        help="replace OUT even if no build wrote it or it holds paths the last build did not",
    )
    build.set_defaults(run=_build)

    serve = commands.add_parser("serve", help="build the article and serve it")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--open", action="store_true", help="open it in a browser")
    serve.set_defaults(run=_serve)

    commands.add_parser("check", help="probe an attention function for silent bugs", add_help=False)
    return top


def main(argv: list[str] | None = None) -> int:
    interrupted: list[int] = []
    handlers: list[object] = []  # (signal, this handler, the one before) once set
    try:
        handlers += _noting_interrupts(interrupted)
        argv = sys.argv[1:] if argv is None else argv
        if argv[:1] == ["check"]:
            return _check(argv[1:])
        args = parser().parse_args(argv)
        return args.run(args)
    except BaseException as exc:  # Ctrl-C while a command's modules load, before it handles its own
        if isinstance(exc, SystemExit) or not (interrupted or isinstance(exc, KeyboardInterrupt)):
            raise
        print("selfattn: interrupted", file=sys.stderr)
        return 130
    finally:
        if handlers:
            signal, ours, previous = handlers
            if signal.getsignal(signal.SIGINT) is ours:  # type: ignore[attr-defined]
                signal.signal(signal.SIGINT, previous)  # type: ignore[attr-defined]


def _noting_interrupts(interrupted: list[int]) -> list[object]:
    """Ctrl-C raises KeyboardInterrupt as before, and is noted in `interrupted`: a module
    loading may turn it into another error (numpy's C extension, into an ImportError)."""
    import signal

    def interrupt(signum: int, frame: object) -> None:
        interrupted.append(signum)
        signal.default_int_handler(signum, frame)  # type: ignore[arg-type]

    return [signal, interrupt, signal.signal(signal.SIGINT, interrupt)]


if __name__ == "__main__":
    sys.exit(main())
