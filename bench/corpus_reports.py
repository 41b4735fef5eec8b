"""`python -m bench.corpus_reports OUT [PREFIX...]`: every corpus report, written to OUT.

For a refactor that must change no report: record before and after, then `diff -r` the two
folders. Each case is checked as the tests check it (tests/check: the table's and the headers'
cases with their timeouts, budget and arguments; the cases with a test of their own as
test_kernels_after does; the files the API cannot be handed through the CLI) and gives
OUT/<file>.txt (the text report) and OUT/<file>.json, with the seconds taken set to 0 and the
checkout's own path replaced by <root>. A case whose framework is missing here gives
OUT/<file>.skipped. PREFIX limits the run to files starting so (`triton_`, `jax_`).

Randomness is pinned per case, so a report does not depend on the cases run before it:
torch's generator is seeded before each check, and Keras's (which draws a layer's weights
when it is built) too.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import time
from pathlib import Path
from typing import Any

from selfattn.check import check
from tests.check import corpus_cases as cases
from tests.check import test_check as table
from tests.check.published import load
from tests.check.test_kernels_after import _header

ROOT = Path(__file__).resolve().parents[1]
HAVE = {
    "torch_": table.HAS_TORCH,
    "jax_linen_": table.HAS_FLAX,
    "jax_": table.HAS_JAX,
    "keras_": table.HAS_KERAS and table.HAS_TORCH,
    "triton_": table.HAS_TRITON and table.HAS_TORCH,
    "mlx_": False,
}


def runnable(file: str) -> bool:
    if file.startswith("tinygrad_"):
        return table._tinygrad_runs()
    return next((bool(have) for p, have in HAVE.items() if file.startswith(p)), True)


def _pinned(file: str) -> None:
    if table.HAS_TORCH:
        import torch  # pyright: ignore[reportMissingImports]

        torch.manual_seed(0)
    if file.startswith("keras_"):  # after the file set KERAS_BACKEND, as it does
        import keras  # pyright: ignore[reportMissingImports]

        keras.utils.set_random_seed(0)


def _through_cli(file: str) -> dict[str, Any]:
    name = cases.CASES[file].name
    proc = table._cli(
        f"{cases.CORPUS / file}:{name}", "--json", "--timeout", str(table.timeout(file))
    )
    said = json.loads(proc.stdout)
    said["target"] = said["target"].replace(f"{ROOT}/", "<root>/")
    return said


def record(file: str, out: Path) -> str:
    """Write the case's report to `out`; its verdict."""
    if file in table.CLI_ONLY:
        said = _through_cli(file)
        said["seconds"] = 0
        (out / f"{file}.json").write_text(json.dumps(said, indent=2) + "\n")
        return said["verdict"]
    if file in cases.OWN_TEST:
        said = _header(file)
        if file.startswith("triton_"):
            from selfattn.check.interpret import on_cpu

            on_cpu()
        target = load(file, said["target"], prefix="after")
        how: dict[str, Any] = {"timeout": 60.0 if file.startswith("triton_") else 5.0}
    else:
        target = cases.load(file)
        how = {"timeout": cases.timeout(file), "budget": cases.TEST_BUDGET}
        how["args"] = cases.ARGS.get(file)
    _pinned(file)
    with contextlib.redirect_stdout(io.StringIO()):  # hostile_prints
        report = check(target, **how)
    report.seconds = 0.0
    (out / f"{file}.txt").write_text(str(report) + "\n")
    (out / f"{file}.json").write_text(report.to_json() + "\n")
    return report.verdict


def main(argv: list[str]) -> None:
    out, prefixes = Path(argv[0]), argv[1:]
    out.mkdir(parents=True, exist_ok=True)
    files = sorted(set(cases.CASES) | cases.OWN_TEST)
    for file in (f for f in files if not prefixes or f.startswith(tuple(prefixes))):
        if not runnable(file):
            (out / f"{file}.skipped").write_text("framework missing\n")
            continue
        started = time.monotonic()
        verdict = record(file, out)
        print(f"{file} {time.monotonic() - started:.1f} s {verdict}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
