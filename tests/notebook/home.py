"""Jupyter's folders inside a test's own folder, so nothing a notebook test runs writes to ~
(settings, the theme a test picks, workspaces, kernel files, the notary's secret)."""

from __future__ import annotations

from pathlib import Path


def jupyter_home(root: Path) -> dict[str, str]:
    """The environment variables that point Jupyter, JupyterLab and nbclient into `root`."""
    (root / "data").mkdir(exist_ok=True)
    return {
        "JUPYTER_CONFIG_DIR": str(root / "config"),
        "JUPYTER_DATA_DIR": str(root / "data"),
        "JUPYTER_RUNTIME_DIR": str(root / "runtime"),
        "JUPYTERLAB_SETTINGS_DIR": str(root / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(root / "workspaces"),
    }
