"""The README's notebook section installs what a newcomer on a CPU machine needs, as written:
no placeholder to fill in, JupyterLab to run the widgets in, and torch's CPU wheel (plain
`pip install torch` fetches the CUDA build, several times the size)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

README = Path(__file__).parents[2] / "README.md"


def section() -> str:
    text = README.read_text(encoding="utf-8")
    return text.split("## In a notebook", 1)[1].split("\n## ", 1)[0]


def test_the_install_lines_need_nothing_filled_in_and_bring_jupyterlab_and_cpu_torch() -> None:
    said = section()
    lines = [line for line in said.splitlines() if re.match(r"\s*pip install", line)]
    assert lines, "the section has install lines"
    assert not re.search(r"OWNER|<[a-z-]+>|YOUR", said)  # nothing to fill in
    assert any("jupyterlab" in line for line in lines)
    torch = [line for line in lines if re.search(r"\btorch\b", line)]
    assert torch and all("/whl/cpu" in line for line in torch)


def test_the_install_lines_run_from_the_repository_as_pasted() -> None:
    """The line `cd selfattn  # your clone` named no URL and no folder a newcomer has: the
    lines before the first pip install, pasted in a shell anywhere inside the repository,
    land in its root."""
    block = section().split("```sh\n", 1)[1].split("```", 1)[0]
    moves = [line.split("  #")[0] for line in block.splitlines() if line.startswith("cd ")]
    assert moves and "clone" not in " ".join(moves)
    here = README.parent / "tests" / "notebook"
    landed = subprocess.run(
        ["bash", "-c", " && ".join([*moves, "pwd"])], cwd=here, capture_output=True, text=True
    )
    assert landed.returncode == 0, landed.stderr
    assert Path(landed.stdout.strip()).resolve() == README.parent.resolve()
