"""The bundler joins the article's modules into one, and refuses what it cannot join safely."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from selfattn.notebook import assets
from selfattn.site.bundle import BundleError, bundle


def write(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (folder / name).write_text(text)
    return folder / "entry.js"


def test_the_widget_bundle_holds_every_module_once_in_dependency_order() -> None:
    text = assets.esm()
    names = [line.split("// ")[1] for line in text.splitlines() if "= (() => { // " in line]
    assert names.count("dom.js") == 1 and names.count("grid.js") == 1
    assert max(names.index("dom.js"), names.index("notation.js")) < names.index("grid.js")
    assert names[-1] == "entry.js"
    assert "\nimport " not in text and text.rstrip().endswith(
        "export default __selfattn_module_1.default;"
    )


def test_private_names_of_two_modules_do_not_meet(tmp_path: Path) -> None:
    entry = write(
        tmp_path,
        {
            "a.js": 'const NS = "a";\nexport function a() { return NS; }\n',
            "b.js": 'const NS = "b";\nexport const b = () => NS;\n',
            "entry.js": 'import { a } from "./a.js";\nimport { b as bee } from "./b.js";\n'
            "export default { run: () => a() + bee() };\n",
        },
    )
    text = bundle(entry)
    assert text.count('const NS = "a"') == 1 and "const bee = __selfattn_module_" in text


@pytest.mark.parametrize(
    ("files", "message"),
    [
        (
            {
                "a.js": "export const x = 1;\n",
                "b.js": "export const x = 2;\n",
                "entry.js": 'import { x } from "./a.js";\nimport { x } from "./b.js";\n'
                "export default x;\n",
            },
            "name clash",
        ),
        (
            {
                "a.js": "export const x = 1;\n",
                "entry.js": 'import { x } from "./a.js";\nconst x = 2;\nexport default x;\n',
            },
            "name clash",
        ),
        (
            {
                "a.js": "export const x = 1;\n",
                "entry.js": 'import { y } from "./a.js";\nexport default y;\n',
            },
            "does not export",
        ),
        (
            {
                "a.js": 'import { e } from "./entry.js";\nexport const x = e;\n',
                "entry.js": 'import { x } from "./a.js";\nexport const e = 1;\nexport default x;\n',
            },
            "cycle",
        ),
        ({"entry.js": 'const m = import("./a.js");\nexport default m;\n'}, "cannot rewrite"),
        ({"entry.js": "export * from './a.js';\nexport default 1;\n"}, "cannot rewrite"),
        ({"entry.js": 'import { x } from "./missing.js";\nexport default x;\n'}, "no module"),
        ({"entry.js": "export const x = 1;\n"}, "no default export"),
    ],
)
def test_what_cannot_be_joined_safely_fails_the_build(
    tmp_path: Path, files: dict[str, str], message: str
) -> None:
    with pytest.raises(BundleError, match=message):
        bundle(write(tmp_path, files))


def test_the_styles_carry_both_palettes_scoped_to_the_widget() -> None:
    css = assets.css()
    assert ".selfattn-nb {" in css and '.selfattn-nb[data-theme="dark"] {' in css
    assert ":root" not in css and "--query:" in css


def test_the_widget_bundle_stays_under_40_kb_gzipped() -> None:
    import gzip

    assert len(gzip.compress(assets.esm().encode())) < 40_000


def test_the_widgets_modules_are_linted_as_the_articles_are() -> None:
    # `make lint` runs biome and tsc on the files these two list, not on paths of its own
    root = Path(__file__).parents[2]
    biome = json.loads((root / "biome.json").read_text())
    jsconfig = json.loads((root / "jsconfig.json").read_text())
    for listed in (biome["files"]["includes"], jsconfig["include"]):
        assert {"selfattn/site/static/js/**/*.js", "selfattn/notebook/js/**/*.js"} <= set(listed)
    linted = (root / "Makefile").read_text().split("\nLINT = ", 1)[1].split("\n\n", 1)[0]
    assert "/biome ci \\\n" in linted and "/tsc -p jsconfig.json" in linted
