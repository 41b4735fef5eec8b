"""Jupyter's folders inside a test's own folder, so nothing a notebook test runs writes to ~
(settings, the theme a test picks, workspaces, kernel files, the notary's secret); and what the
live tests and bench/others_lab.py share: a notebook's JSON, a server started and stopped, a
cell run."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from playwright.sync_api import Page


def jupyter_home(root: Path) -> dict[str, str]:
    """The environment variables that point Jupyter, JupyterLab and nbclient into `root`."""
    (root / "data").mkdir(exist_ok=True)
    # JupyterLab's first start asks, in a toast over the notebook, whether to fetch its news:
    # answered "never", as a reader who dismissed it, so no screenshot has it over a view
    asked = root / "settings" / "@jupyterlab" / "apputils-extension"
    asked.mkdir(parents=True, exist_ok=True)
    (asked / "notification.jupyterlab-settings").write_text('{"fetchNews": "false"}')
    return {
        "JUPYTER_CONFIG_DIR": str(root / "config"),
        "JUPYTER_DATA_DIR": str(root / "data"),
        "JUPYTER_RUNTIME_DIR": str(root / "runtime"),
        "JUPYTERLAB_SETTINGS_DIR": str(root / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(root / "workspaces"),
    }


def notebook_of(cells: list[str]) -> dict:
    return {
        "cells": [
            {
                "cell_type": "code",
                "id": f"cell-{i}",
                "metadata": {},
                "source": text,
                "outputs": [],
                "execution_count": None,
            }
            for i, text in enumerate(cells)
        ],
        "metadata": {
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def serving(command: list[str], port: int, health: str, **popen: Any) -> Iterator[str]:
    """A notebook server started by `command` on `port`: its URL once `health` answers 200
    (within two minutes), stopped after."""
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **popen)
    try:
        url = f"http://127.0.0.1:{port}/"
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(url + health, timeout=2) as response:
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
