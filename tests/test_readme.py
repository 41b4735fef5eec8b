"""README's folder table names every module and folder of the package and of the tests."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "selfattn"
JS = PACKAGE / "site" / "static" / "js"


def folder_table() -> str:
    """The table under README's "What is in here"."""
    text = (ROOT / "README.md").read_text("utf-8")
    table = text.split("## What is in here", 1)[1].split("\n## ", 1)[0]
    assert table.count("\n|") > 10, "README has no folder table"
    return table


def modules() -> list[Path]:
    """Every module the table must name: Python and ES modules, kit and folders of tests."""
    found = [
        *PACKAGE.glob("*.py"),
        *(PACKAGE / "check").glob("*.py"),
        *(PACKAGE / "notebook").glob("*.py"),
        *(PACKAGE / "site").glob("*.py"),
        *JS.glob("*.js"),
        *(JS / "kit").glob("*.js"),
    ]
    folders = [p for p in (ROOT / "tests").iterdir() if p.is_dir() and any(p.glob("test_*.py"))]
    return [p for p in found if p.name != "__init__.py"] + folders


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_folder_table_names_every_module(path: Path) -> None:
    relative = path.relative_to(ROOT).as_posix() + ("/" if path.is_dir() else "")
    names = {f"`{path.stem}`", f"`{path.name}`", f"`{relative}`"}
    assert any(name in folder_table() for name in names), f"README's folder table misses {relative}"
