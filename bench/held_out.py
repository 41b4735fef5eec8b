"""`python -m bench.held_out DIR`: `selfattn check` on the published files themselves.

The corpus holds our own code written after published attention code; the published text is
never committed. This runs the real targets for anyone who has them: each entry of
tests/check/corpus/published.toml is looked for at DIR/<owner>+<name>/<commit>/<path> (a
checkout of the repository at that commit, or at least the file and what it imports), built
as the entry says and checked in a child process of its own (two repositories may both have a
`utils` or a `models`). It prints target, expected, got and time, a row per entry; a file not
found is `absent`. Exit status 1 when a file found gives another verdict than expected.

How an entry is built, when importing the file whole cannot work here:
- `defs`: only these top-level definitions are taken from the file, run after `imports`
  (a notebook's export, or a module whose package pulls in a tokenizer or a data set);
- `docstring`: the function is the one written out in that function's documentation;
- `installed`: the file is a compiled binding's source; the target is the installed module.
Packages on the path are made without running their `__init__.py`, so a module can import its
siblings without the package's heavy imports.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import importlib.util
import json
import os
import subprocess
import sys
import textwrap
import time
import tomllib
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / "tests" / "check" / "corpus" / "published.toml"
STATUS = {0: "ok", 1: "buggy", 2: "error"}
TIMEOUT = 600.0  # seconds for one target's child: a Triton kernel under the interpreter is slow


@dataclass(frozen=True)
class Target:
    """One published target: where it is, how it is built, what `check` must say."""

    repository: str
    path: str  # the first path is the file; more (", ") are files it was read with
    commit: str
    licence: str
    name: str  # a function, or the class `build` makes an instance of
    expected: str  # `ok`, `buggy ID...` or `error`
    case: str = ""  # the corpus file written after it, if any
    why: str = ""  # for `error`: what stops it
    build: str = ""  # an expression making the target, evaluated among the file's names
    setup: str = ""  # statements run on the built target, `attn`, as after training
    args: str = ""  # a Python literal: extra arguments for every call
    imports: str = ""  # run before `defs`, or before the file is imported
    defs: list[str] = field(default_factory=list)
    docstring: bool = False
    installed: str = ""
    itself: str = ""  # the name the file's definitions call their own module by (d2l)
    # a folder of the checkout put on sys.path, the file then imported as its package is when
    # installed, every __init__ run (diffusers' `src`: its modules read the package's version)
    installable: str = ""

    @property
    def file(self) -> str:
        return self.path.split(", ")[0]

    @property
    def label(self) -> str:
        return f"{self.repository} {self.file}:{self.name}"

    @property
    def key(self) -> tuple[str, str, str, str]:
        """What tells one row from another: a file's rows before and after a fix share a
        label, and one file at one commit may be built, or called, more than one way."""
        return self.label, self.commit, self.build, self.args

    def where(self, root: Path) -> Path:
        return root / self.repository.replace("/", "+") / self.commit / self.file


def targets(manifest: Path = MANIFEST) -> list[Target]:
    with manifest.open("rb") as f:
        return [Target(**row) for row in tomllib.load(f)["target"]]


def verdict(status: int, ids: list[str]) -> str:
    return " ".join([STATUS[status], *sorted(ids)])


def _import(root: Path, file: Path) -> types.ModuleType:
    """The file as a module of its packages, made bare (their __init__ not run)."""
    parts = file.relative_to(root).with_suffix("").parts
    sys.path[:0] = [str(root), str(file.parent)]
    if not all(p.isidentifier() for p in parts):  # 06-fused-attention.py
        spec = importlib.util.spec_from_file_location("held_out_target", file)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        return module
    for i in range(1, len(parts)):
        package = ".".join(parts[:i])
        if package not in sys.modules:
            bare = types.ModuleType(package)
            bare.__path__ = [str(root.joinpath(*parts[:i]))]
            sys.modules[package] = bare
    return importlib.import_module(".".join(parts))


def _defs(t: Target, text: str) -> dict[str, Any]:
    """The named top-level definitions of the file, run after the entry's imports."""
    tree = ast.parse(text)
    keep: list[ast.stmt] = [
        n
        for n in tree.body
        if isinstance(n, ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef) and n.name in t.defs
    ]
    ns: dict[str, Any] = {"__name__": "held_out_target"}
    # a @dataclass among them looks its module up in sys.modules (Meta's ModelArgs)
    sys.modules.setdefault("held_out_target", types.ModuleType("held_out_target"))
    exec(compile(t.imports, "<imports>", "exec"), ns)
    exec(compile(ast.Module(body=keep, type_ignores=[]), "<defs>", "exec"), ns)
    if t.itself:
        ns[t.itself] = types.SimpleNamespace(**ns)
    return ns


def _docstring(t: Target, text: str) -> dict[str, Any]:
    """`def NAME(` as the documentation writes it out: the indented block from that line."""
    start = text.index(f"def {t.name}(")
    line_start = text.rindex("\n", 0, start) + 1
    lines = text[line_start:].splitlines()
    indent = len(lines[0]) - len(lines[0].lstrip())
    block = [lines[0]]
    for line in lines[1:]:
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        block.append(line)
    ns: dict[str, Any] = {}
    exec(compile(t.imports, "<imports>", "exec"), ns)
    exec(compile(textwrap.dedent("\n".join(block)), "<docstring>", "exec"), ns)
    return ns


def build(root: Path, t: Target) -> Any:
    """The target, made from the published file under root."""
    file = t.where(root)
    checkout = root / t.repository.replace("/", "+") / t.commit
    if t.installed:
        ns = vars(importlib.import_module(t.installed))
    elif t.docstring:
        ns = _docstring(t, file.read_text("utf-8"))
    elif t.defs:
        ns = _defs(t, file.read_text("utf-8"))
    elif t.installable:
        sys.path.insert(0, str(checkout / t.installable))
        dotted = file.relative_to(checkout / t.installable).with_suffix("").parts
        ns = vars(importlib.import_module(".".join(dotted)))
    else:
        if t.imports:  # stand-ins for what the file imports that is not at hand (lightning)
            exec(compile(t.imports, "<imports>", "exec"), {})
        ns = vars(_import(checkout, file))
    scope = {**ns}
    obj = eval(t.build, scope) if t.build else ns[t.name]  # the manifest's own text
    if t.setup:
        exec(compile(t.setup, "<setup>", "exec"), {**scope, "attn": obj})
    return obj


def run_one(root: Path, t: Target) -> dict[str, Any]:
    """Check one target in this process; what the target prints goes to stderr."""
    from selfattn.check import check

    started = time.perf_counter()
    with contextlib.redirect_stdout(sys.stderr):
        try:
            target = build(root, t)
        except BaseException as exc:  # the file does not import or the target cannot be made
            return {"got": "error", "note": f"not built: {type(exc).__name__}: {exc}"[:300]}
        args = ast.literal_eval(t.args) if t.args else None
        report = check(target, args=args)
    ids = [f.id for f in report.errors]
    return {
        "got": verdict(report.exit_status, ids),
        "note": (report.error or "")[:300],
        "seconds": time.perf_counter() - started,
    }


def _child(root: Path, t: Target) -> dict[str, Any]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    source = t.where(root).read_text("utf-8", errors="replace")
    if "triton" in source and "TRITON_INTERPRET" not in env:
        env["TRITON_INTERPRET"] = "1"  # as `selfattn check` does on a machine without a GPU
    cmd = [sys.executable, "-m", "bench.held_out", str(root), "--one", *t.key]
    try:
        proc = subprocess.run(
            cmd, env=env, capture_output=True, text=True, timeout=TIMEOUT, check=False
        )
    except subprocess.TimeoutExpired:
        return {"got": "error", "note": f"no answer in {TIMEOUT:.0f} s"}
    lines = proc.stdout.strip().splitlines()
    if proc.returncode or not lines:
        last = (proc.stderr.strip().splitlines() or [""])[-1]
        return {"got": "error", "note": f"the child stopped: {last}"[:300]}
    return json.loads(lines[-1])


def run(root: Path, only: list[Target] | None = None) -> list[tuple[Target, dict[str, Any]]]:
    """Each target found under root checked in a child; absent ones marked so."""
    rows = []
    for t in only or targets():
        if not t.where(root).is_file():
            rows.append((t, {"got": "absent"}))
            continue
        started = time.perf_counter()
        result = _child(root, t)
        result.setdefault("seconds", time.perf_counter() - started)
        rows.append((t, result))
    return rows


def table(rows: list[tuple[Target, dict[str, Any]]]) -> str:
    out = ["| target | expected | got | time |", "| --- | --- | --- | --- |"]
    for t, r in rows:
        seconds = f"{r['seconds']:.2f} s" if "seconds" in r else ""
        got = r["got"] + (f" ({r['note']})" if r.get("note") and r["got"] != t.expected else "")
        out.append(f"| `{t.label}` | {t.expected} | {got} | {seconds} |")
    return "\n".join(out)


def main(argv: list[str]) -> int:
    if len(argv) == 6 and argv[1] == "--one":  # the child
        root = Path(argv[0]).resolve()
        t = next(t for t in targets() if list(t.key) == argv[2:])
        print(json.dumps(run_one(root, t)))
        return 0
    if len(argv) != 1 or not Path(argv[0]).is_dir():
        print("usage: python -m bench.held_out DIR (DIR/<owner>+<name>/<commit>/<path>)")
        return 2
    rows = run(Path(argv[0]).resolve())
    print(table(rows))
    found = [(t, r) for t, r in rows if r["got"] != "absent"]
    return int(any(r["got"] != t.expected for t, r in found))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
