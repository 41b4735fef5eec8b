"""The widgets' code and styles, built from the article's own files, and the standalone page."""

from __future__ import annotations

import base64
import functools
import html
import re
from pathlib import Path
from typing import Any

from selfattn.site.bundle import BundleError, bundle
from selfattn.site.script_json import script_json

from .tokens import clean, visible

HERE = Path(__file__).parent
STATIC = HERE.parent / "site" / "static"
ENTRY = HERE / "js" / "entry.js"
# a saved page holds only the view it shows (the map's page half the code of every view's):
# each kind's module and render function, as entry.js picks them in a notebook
VIEWS = {
    "map": ("map.js", "renderMap"),
    "heads": ("heads.js", "renderHeads"),
    "compare": ("compare.js", "renderCompare"),
    "lines": ("lines.js", "renderLines"),
    "qk": ("qk.js", "renderQK"),
    "several": ("several.js", "renderSeveral"),
    "tokens": ("tokens.js", "renderTokens"),
}
SCOPE = ".selfattn-nb"

# the page's palette blocks, read from style.css so the widget and the article share one
# (each may also name the class the kit's gallery sets a theme by: `:root, .theme-light {`)
PALETTE = re.compile(
    r"^(:root(?:\[data-theme=\"dark\"\])?)(?:,\s*\.theme-(?:light|dark))?\s*\{(.*?)^\}", re.M | re.S
)


@functools.cache
def esm() -> str:
    """The ES module anywidget loads: every module the widgets import, joined."""
    return bundle(ENTRY)


@functools.cache
def page_code(kind: str) -> str:
    """A saved page's module: the view of this kind and the stand-in model, no other view."""
    file, render = VIEWS[kind]
    text = (
        f'import {{ {render} }} from "./{file}";\n'
        'import { standaloneModel } from "./common.js";\n'
        f"export {{ standaloneModel }};\nexport default {{ render: {render} }};\n"
    )
    code = bundle(ENTRY, export_default=False, entry_text=text)
    if "</script" in code.lower():
        raise BundleError("the bundle contains '</script', which would end the page's script")
    return code


@functools.cache
def css() -> str:
    """The palette (light and dark), the kit's rules and the widget's own, for a shadow root."""
    blocks = dict(
        (selector, body) for selector, body in PALETTE.findall((STATIC / "style.css").read_text())
    )
    if set(blocks) != {":root", ':root[data-theme="dark"]'}:
        raise BundleError("style.css: the light and dark palette blocks were not found")
    light, dark = blocks[":root"], blocks[':root[data-theme="dark"]']
    palette = f'{SCOPE} {{{light}}}\n{SCOPE}[data-theme="dark"] {{{dark}}}\n'
    kit = (STATIC / "css" / "kit.css").read_text()
    return palette + kit + (HERE / "js" / "widget.css").read_text()


# The page's script is a classic one, not a module: a module waits for the parse to end and
# runs in a task of its own, after the browser has painted the empty page, so the drawing
# came a frame later; a classic script at the end of <body> runs within the parse, and the
# first frame holds the drawing. The bundle has no import or export left (bundle(...,
# export_default=False)); "use strict" keeps the modules' own semantics.
PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; \
script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:">
<title>{title}</title>
<style>
body {{ margin: 0; padding: 16px; background: #fdfcf8; }}
@media (prefers-color-scheme: dark) {{ body {{ background: #15181f; }} }}
</style>
</head>
<body>
<div id="selfattn-widget"></div>
<script type="application/json" id="selfattn-data">{data}</script>
<script>
(() => {{
"use strict";
{code}
const data = JSON.parse(document.getElementById("selfattn-data").textContent);
selfattn_entry.standaloneModel(data.state, data.slices).then((model) =>
  selfattn_entry.default.render({{ model, el: document.getElementById("selfattn-widget") }}));
}})();
</script>
</body>
</html>
"""


def _text(value: Any) -> str:
    """Bytes (a widget's binary buffers) as base64, which the page's JSON can hold."""
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    raise TypeError(f"{type(value).__name__} cannot go in a saved page")


def _cleaned(value: Any) -> Any:
    """`value` with every string in it one UTF-8 can write (tokens.clean): the title, names
    and labels a user gave reach the page as they are shown, never as an encoding error."""
    if isinstance(value, str):  # ASCII (a saved map's base64, 300 MB) holds no surrogate
        return value if value.isascii() else clean(value)
    if isinstance(value, dict):
        return {_cleaned(k): _cleaned(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_cleaned(v) for v in value]
    return value


def page(state: dict[str, Any], slices: dict[str, dict[str, Any]] | None = None) -> str:
    """One HTML file holding the widget's code and data: it opens offline from file://,
    and its content security policy refuses any request to any origin."""
    state, slices = _cleaned(state), _cleaned(slices or {})
    code = page_code(state.get("kind") or "qk")
    data = script_json({"state": {**state, "css": css()}, "slices": slices}, default=_text)
    return PAGE.format(
        # a control character or a bidi mark in a title is shown as its escape, as in a label
        title=html.escape(visible(state.get("title") or "selfattn")),
        data=data,
        code=code,
    )
