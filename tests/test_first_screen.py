"""What the first screen needs comes in one request after the HTML: main.js is the page and
the first figures joined into one module, the other figures come as one more chunk that
reuses the first's modules, and the colour-scheme script and the stylesheet are inside the
page, allowed by the hashes the server's policy carries."""

from __future__ import annotations

import base64
import hashlib
import re
import threading
import urllib.request
from pathlib import Path

import pytest

from selfattn.site import build as builder
from selfattn.site.serve import make_server

JOINED = re.compile(r"^const __selfattn_module_\d+ = \(\(\) => \{ // (\S+)$", re.M)


def imports_by_lines(path: Path) -> list[Path]:
    """A second reading of a module's static imports, line by line (not the builder's)."""
    text = re.sub(r"/\*.*?\*/", "", path.read_text("utf-8"), flags=re.S)
    statements = re.findall(r"^(?:import|export)\b[^;]*;", text, flags=re.M)
    found = [re.search(r"[\"'](\.{1,2}/[^\"']+)[\"']\s*;$", s) for s in statements]
    return [(path.parent / m.group(1)).resolve() for m in found if m]


def reached(entries: list[Path]) -> set[str]:
    """File names of every module the entries reach by static imports (in the sources)."""
    waiting, seen = list(entries), set(entries)
    while waiting:
        for target in imports_by_lines(waiting.pop()):
            if target not in seen:
                seen.add(target)
                waiting.append(target)
    return {p.name for p in seen}


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("chunks") / "site"
    builder.build(folder)
    return folder


def test_main_js_holds_the_page_and_the_first_figures_and_imports_nothing(site):
    main = (site / "static" / "js" / "main.js").read_text("utf-8")
    assert imports_by_lines(site / "static" / "js" / "main.js") == []
    text = (site / "index.html").read_text("utf-8")
    figures = re.findall(r'<figure id="[a-z][a-z0-9-]*"[^>]*data-module="([^"]+)"', text)
    first = [builder.STATIC / m for m in figures[: builder.FIRST_SCREEN_FIGURES]]
    joined = JOINED.findall(main)
    assert len(joined) == len(set(joined)), "a module joined twice"
    assert set(joined) == reached([builder.STATIC / builder.PAGE, *first]) | {
        "first-screen.entry.js"
    }
    assert "modulepreload" not in text  # one file: nothing to preload


def test_the_rest_reuses_the_first_screens_modules(site):
    rest = site / "static" / builder.REST
    text = rest.read_text("utf-8")
    assert imports_by_lines(rest) == [(site / "static" / builder.ENTRY).resolve()]
    main = set(JOINED.findall((site / "static" / builder.ENTRY).read_text("utf-8")))
    mine = set(JOINED.findall(text))
    assert not (main & mine), f"in both chunks: {sorted(main & mine)}"
    modules = builder.figure_modules().values()
    later = [p for p in modules if (builder.STATIC / p).name not in main]
    assert {builder.STATIC / p for p in later} and {Path(p).name for p in later} <= mine
    assert mine == reached([builder.STATIC / p for p in later]) - main | {"rest.entry.js"}
    assert not list((site / "static" / "js").glob("*.entry.js"))


def test_both_chunks_ask_to_be_compiled_while_they_stream(site):
    """Every function in them runs during loading: each file opens with the hint, once."""
    for chunk in (builder.ENTRY, builder.REST):
        text = (site / "static" / chunk).read_text("utf-8")
        assert text.startswith("//# allFunctionsCalledOnLoad\n"), chunk
        assert text.count("allFunctionsCalledOnLoad") == 1


@pytest.fixture
def static(monkeypatch, tmp_path) -> Path:
    """An empty static folder for hand-written modules."""
    (tmp_path / "js").mkdir()
    monkeypatch.setattr(builder, "STATIC", tmp_path)
    return tmp_path


def test_static_imports_reads_every_form_and_skips_dynamic_ones(static):
    for name in ("a", "b", "c", "d", "e", "f"):
        (static / "js" / f"{name}.js").write_text("export const x = 1;\n")
    (static / "js" / "entry.js").write_text(
        "// An entry point.\n"
        'import { x } from "./a.js";\n'
        "import {\n  x as y,\n  z,\n} from './b.js';\n"
        'import "./c.js";\n'
        'export * from "./d.js";\n'
        'export { w } from "./e.js";\n'
        'import * as all from "./f.js";\n'
        '/** @param {ReturnType<import("./nowhere.js").make>} p */\n'
        'const later = () => import("./nowhere.js");\n'
        'const text = "import { q } from \\"./nowhere.js\\"";\n'
    )
    assert builder.static_imports("js/entry.js") == [
        f"js/{name}.js" for name in ("a", "b", "c", "d", "e", "f")
    ]


def test_module_graph_follows_imports_through_folders_once(static):
    (static / "js" / "figures").mkdir()
    (static / "js" / "figures" / "F01-x.js").write_text('import { a } from "../a.js";\n')
    (static / "js" / "a.js").write_text('import { b } from "./b.js";\nexport const a = 1;\n')
    (static / "js" / "b.js").write_text('import { a } from "./a.js";\nexport const b = 2;\n')
    assert builder.module_graph("js/figures/F01-x.js") == [
        "js/figures/F01-x.js",
        "js/a.js",
        "js/b.js",
    ]


@pytest.mark.parametrize(
    ("line", "error"),
    [('import { a } from "./gone.js";', "does not exist"), ('import x from "lib";', "relative")],
)
def test_an_import_the_browser_could_not_load_is_a_build_error(static, line, error):
    (static / "js" / "entry.js").write_text(line + "\n")
    with pytest.raises(builder.BuildError, match=error):
        builder.static_imports("js/entry.js")


@pytest.mark.parametrize("edited", [False, True])
def test_the_policy_allows_the_inline_script_and_stylesheet_by_their_hashes_and_nothing_else(
    tmp_path, monkeypatch, edited
):
    """`edited`: the sources change each time they are read, as an edit landing while the
    server builds: the policy must still allow the text the pages hold."""
    if edited:
        for name in ("inline_script", "stylesheet"):
            reads = iter(range(1, 100))
            original = getattr(builder, name)
            monkeypatch.setattr(
                builder,
                name,
                lambda original=original, reads=reads: f"{original()}/*{next(reads)}*/",
            )
    server = make_server("127.0.0.1", 0, tmp_path / "site", watch=False)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{server.server_port}/en/") as response:
            policy = response.headers["Content-Security-Policy"]
            page = response.read().decode("utf-8")
    finally:
        server.shutdown()
        server.server_close()

    def sources(directive: str) -> list[str]:
        return re.search(rf"{directive} ([^;]+);", policy).group(1).split()

    def allowed(text: str) -> list[str]:
        digest = base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()
        return ["'self'", f"'sha256-{digest}'"]

    scripts = re.findall(r"<script>(.*?)</script>", page, flags=re.S)
    styles = re.findall(r"<style>(.*?)</style>", page, flags=re.S)
    assert len(scripts) == 1 and "matchMedia" in scripts[0]
    # the font's rule, then the stylesheet; the policy allows each page's font rule (its
    # address differs by folder) and the one stylesheet
    face, sheet = styles
    assert "@font-face" in face and "--query" in sheet and "#tiled-pass" in sheet
    assert sources("script-src") == allowed(scripts[0])
    faces = sorted(allowed(builder.font_face(root))[1] for root in ("./", "../"))
    assert allowed(face)[1] in faces
    assert sources("style-src") == [*allowed(sheet), *faces]
    assert "unsafe" not in policy and 'rel="stylesheet"' not in page
    for inlined in (builder.INLINE_SCRIPT, "style.css", "css"):
        assert not (tmp_path / "site" / "static" / inlined).exists(), inlined
