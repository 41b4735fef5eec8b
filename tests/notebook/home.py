"""Jupyter's folders inside a test's own folder, so nothing a notebook test runs writes to ~
(settings, the theme a test picks, workspaces, kernel files, the notary's secret)."""

from __future__ import annotations

from pathlib import Path


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
