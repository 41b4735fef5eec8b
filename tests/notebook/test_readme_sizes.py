"""The README's size of a saved 12 × 12-head map at 512 tokens is the size bench.notebook's
data makes (it said 8.4 MB; the file is 9.4 MB)."""

from __future__ import annotations

import re
from pathlib import Path

from bench.notebook import heads
from selfattn.notebook import show_map

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_readme_says_the_size_a_saved_map_has(tmp_path: Path) -> None:
    said = re.search(r"at 512 tokens, ([\d.]+) MB", README.read_text())
    assert said, "the README no longer says the size at 512 tokens"
    path = show_map(heads(12, 12, 512), [f"Ġt{i}" for i in range(512)]).save_html(
        tmp_path / "map.html"
    )
    assert abs(path.stat().st_size / 1e6 - float(said[1])) < 0.15
