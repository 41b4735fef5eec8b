"""A real JupyterLab: a Python-side change redraws the map, and a click reaches Python.

Slow (a server, a kernel, a browser), so `make test` skips it; `make test-notebook` runs it.
The server is started on a random loopback port and stopped by its PID.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

if not os.environ.get("SELFATTN_LIVE_NOTEBOOK"):
    pytest.skip("a live JupyterLab: run `make test-notebook`", allow_module_level=True)
pytest.importorskip("jupyterlab")

SHOTS = Path(os.environ.get("SELFATTN_SHOTS", "build/notebook-shots"))

CELLS = [
    "import numpy as np\nfrom selfattn.notebook import show_map\n"
    "tokens = ['the', 'cat', 'ate', 'and', 'it', 'ran']\n"
    "normal = np.random.default_rng(0).normal(size=(6, 6))\n"
    "scores = np.where(np.tril(np.ones((6, 6), bool)), normal, -np.inf)\n"
    "w = np.exp(scores - scores.max(1, keepdims=True)); w /= w.sum(1, keepdims=True)\n"
    "m = show_map(w, tokens, causal=True, title='live map')\nm",
    "m.row = 3",
    "print('row', m.row)",
]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("lab")
    notebook = {
        "cells": [
            {
                "cell_type": "code",
                "metadata": {},
                "source": text,
                "outputs": [],
                "execution_count": None,
            }
            for text in CELLS
        ],
        "metadata": {
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (root / "live.ipynb").write_text(json.dumps(notebook))
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        f"--port={port}",
        "--ip=127.0.0.1",
        "--IdentityProvider.token=",
        "--ServerApp.password=",
        f"--ServerApp.root_dir={root}",
        "--ServerApp.disable_check_xsrf=True",
        "--allow-root",
    ]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=root)
    try:
        url = f"http://127.0.0.1:{port}/"
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(url + "api/status", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise
                time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def run_cell(page: Page, index: int) -> None:
    cell = page.locator(".jp-Notebook .jp-Cell").nth(index)
    cell.locator(".jp-InputArea-editor").click()
    page.keyboard.press("Shift+Enter")


def test_python_and_the_browser_talk_both_ways(lab: str, browser: Browser) -> None:
    start = time.monotonic()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    page.goto(lab + "lab/tree/live.ipynb", timeout=120_000)
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)
    page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=120_000)
    run_cell(page, 0)
    try:
        page.wait_for_selector(".selfattn-nb[data-draw-ms]", timeout=120_000)
    finally:
        page.screenshot(path=str(SHOTS / "jupyterlab-first.png"))
    row = page.locator('.selfattn-nb [data-readout="row"]')
    assert row.inner_text() == "0 · the"
    run_cell(page, 1)  # Python sets the row: the map redraws
    row.filter(has_text="3 · and").wait_for(timeout=60_000)
    page.locator('g.cell[data-row="it"][data-column="cat"]').click()  # the reader clicks
    row.filter(has_text="4 · it").wait_for()
    run_cell(page, 2)
    page.locator(".jp-OutputArea-output", has_text="row 4").wait_for(timeout=60_000)
    page.locator(".selfattn-nb").screenshot(path=str(SHOTS / "jupyterlab-light.png"))
    page.get_by_role("menuitem", name="Settings").click()
    page.get_by_text("Theme", exact=True).hover()
    page.get_by_text("JupyterLab Dark", exact=True).click()
    page.wait_for_selector(".selfattn-nb[data-theme='dark']", timeout=60_000)
    page.wait_for_timeout(500)
    page.locator(".selfattn-nb").screenshot(path=str(SHOTS / "jupyterlab-dark.png"))
    page.screenshot(path=str(SHOTS / "jupyterlab-dark-page.png"))
    page.close()
    print(f"\nJupyterLab round trip in {time.monotonic() - start:.1f} s")
