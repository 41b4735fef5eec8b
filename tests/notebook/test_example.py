"""The example notebook runs top to bottom (nbclient, a real kernel), and what it saves shows the
map again when reopened: the widget's state in the notebook, a still picture beside the widget."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from tests.notebook.home import jupyter_home

nbclient = pytest.importorskip("nbclient")
nbformat = pytest.importorskip("nbformat")
pytest.importorskip("ipykernel")
pytest.importorskip("torch")

EXAMPLE = Path(__file__).parents[2] / "examples" / "attention.ipynb"
WIDGET = "application/vnd.jupyter.widget-view+json"
STATE = "application/vnd.jupyter.widget-state+json"


def test_the_example_runs_and_its_saved_outputs_show_the_map_without_a_kernel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notebook = nbformat.read(EXAMPLE, as_version=4)
    nbformat.validate(notebook)  # every cell has an id: nbformat would warn, and the test fail
    shutil.copy(EXAMPLE, tmp_path / EXAMPLE.name)
    # the kernel is a subprocess: it imports selfattn from this tree
    root = str(EXAMPLE.parents[1])
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    for name, value in jupyter_home(tmp_path).items():
        monkeypatch.setenv(name, value)
    nbclient.NotebookClient(
        notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": tmp_path}}
    ).execute()
    nbformat.write(notebook, tmp_path / "ran.ipynb")
    saved = nbformat.read(tmp_path / "ran.ipynb", as_version=4)

    outputs = {cell.id: cell.get("outputs", []) for cell in saved.cells}
    widget, still = (o["data"] for o in outputs[saved.cells[2].id])
    assert WIDGET in widget and "text/html" not in widget
    assert re.search(r"data:image/(png|svg\+xml);base64,", still["text/html"])
    assert "a random two-layer model" in still["text/html"]
    model = widget[WIDGET]["model_id"]
    state = saved.metadata["widgets"][STATE]["state"]
    assert state[model]["state"]["tokens"][:3] == ["the", "cat", "ate"]
    assert state[model]["state"]["_esm"]  # the widget's code is saved too: it can render again

    printed, result = outputs[saved.cells[5].id]  # one printed line, then m.failed
    assert printed["text"].startswith("selfattn: 1 of 8 heads breaks an invariant: weights[1, 3]")
    failed = result["data"]["text/plain"]
    assert "weights[1, 3]: causal: 1 weight above the diagonal" in failed
    assert outputs[saved.cells[6].id][0]["data"]["text/plain"] == "[]"  # bfloat16 passes
    assert (tmp_path / "attention-map.html").stat().st_size > 10_000
    # the heads view, its table, the lines, the comparison and a real layer's plane all draw
    code = [cell for cell in saved.cells if cell.cell_type == "code"]
    for cell in code[-9:]:  # every view after the first map, the plane, the cross-attention...
        assert outputs[cell.id] and "error" not in {o["output_type"] for o in outputs[cell.id]}
    layer0 = next(c for c in code if "show_layer(layer0" in c.source)
    assert WIDGET in outputs[layer0.id][0]["data"]
    kinds = {
        cell.id: state[o["data"][WIDGET]["model_id"]]["state"]["kind"]
        for cell in code
        for o in outputs[cell.id]
        if WIDGET in o.get("data", {})
    }
    assert [kinds[c] for c in ("several-code", "overlay-code", "tokens-code")] == [
        "several",
        "lines",
        "tokens",
    ]
    # an encoder-decoder model's cross-attention: target queries over source keys
    cross = outputs["cross-code"][0]["data"][WIDGET]["model_id"]
    drawn = state[cross]["state"]
    assert drawn["shape"] == [4, 4, 6] and drawn["key_tokens"] == [
        "the",
        "cat",
        "ate",
        "and",
        "it",
        "ran",
    ]
    assert drawn["tokens"] == ["le", "chat", "a", "mangé"] and "(batch, heads," in drawn["reading"]
