"""The builder: a golden sample site, the real pages' invariants, clear errors on bad content."""

from __future__ import annotations

import difflib
import json
import re
from pathlib import Path

import pytest

from selfattn import article, leak
from selfattn.site import build as builder
from selfattn.site.bundle import quiet

from .golden import GOLDEN, PAGES, build_sample


@pytest.fixture(scope="module")
def real_pages(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """The real article, built once: its folder and its two pages' text."""
    folder = tmp_path_factory.mktemp("real") / "site"
    builder.build(folder)
    return folder, {page: (folder / page).read_text("utf-8") for page in PAGES}


def test_sample_pages_match_the_golden_copy(tmp_path):
    pages = build_sample(tmp_path / "site")
    for page in PAGES:
        expected = (GOLDEN / page).read_text("utf-8")
        if pages[page] != expected:
            diff = "\n".join(
                list(
                    difflib.unified_diff(
                        expected.splitlines(), pages[page].splitlines(), lineterm=""
                    )
                )[:40]
            )
            pytest.fail(
                f"{page} differs from tests/site/golden (run `make golden` if intended):\n{diff}"
            )


def test_the_sample_has_one_of_each_directive_and_a_formula(tmp_path):
    for text in build_sample(tmp_path / "site").values():
        assert '<span data-claim="qk.it.cat.raw">' in text
        assert '<figure id="long-key" data-figure="long-key" data-label="F01" data-module=' in text
        assert '<div class="params"' in text
        assert "<math" in text


def test_no_directive_survives_in_the_real_pages(real_pages):
    for text in real_pages[1].values():
        # JSON has its own }}, and so has a compacted stylesheet closing an @media block
        prose = re.sub(r"<(script|style)\b.*?</\1>", "", text, flags=re.S)
        assert "{{" not in prose and "}}" not in prose


def test_urls_are_relative_and_local(real_pages):
    folder, pages = real_pages
    for text in pages.values():
        for url in re.findall(r'(?:href|src)="([^"]+)"', text):
            assert not url.startswith(("/", "http:", "https:", "//")), url
    assert (folder / "static" / "favicon.svg").exists()
    assert (folder / "static" / "js" / "main.js").exists()


def test_only_the_hashed_script_runs_inline(real_pages):
    """Module files, a JSON data block, and the one script whose hash the CSP allows."""
    for text in real_pages[1].values():
        inline = []
        for attrs, body in re.findall(r"<script([^>]*)>(.*?)</script>", text, flags=re.S):
            assert "</" not in body
            if 'src="' not in attrs and 'type="application/json"' not in attrs:
                inline.append(body)
        assert inline == [builder.inline_script()]


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ("A {{claim no.such.claim}} here.", r"no\.such\.claim"),
        ("{{figure no-such}}", "no-such"),  # a figure with no caption
        ("A {{clam typo}} here.", "not understood"),
    ],
)
def test_content_that_refers_to_nothing_is_a_build_error(tmp_path, body, error):
    content = tmp_path / "content"
    content.mkdir()
    for name in ("zh.md", "en.md"):
        (content / name).write_text(f"# t\n\n{body}\n", "utf-8")
    (content / "figures.json").write_text("{}", "utf-8")
    with pytest.raises(builder.BuildError, match=error):
        builder.build(tmp_path / "out", content=content)


def test_maths_becomes_mathml_outside_markdown():
    env = builder.Environment()
    html = builder.render_article("Inline $a_{i} * b_{j}$ and\n\n$$\\frac{1}{2}$$\n", {}, "en", env)
    assert "<math" in html and 'display="block"' in html and "<em>" not in html


def test_the_page_reads_the_numbers_the_article_picks_from_python(real_pages):
    """The figures get −30, 8.00, 1,024, 131,072, 1,000 from the page data, not their own copies."""
    _, pages = real_pages
    for text in pages.values():
        data = re.search(r'id="selfattn-data">(.*?)</script>', text, flags=re.S)
        assert data is not None
        payload = json.loads(data.group(1))
        assert payload["article"] == article.for_page()
        assert payload["training"] == leak.measured().to_json()
    figures = Path(builder.__file__).parent / "static" / "js" / "figures"
    retyped = re.compile(r"131_?072\b|=\s*-30\b|NAMED\s*=\s*8|\b1_?000;|state: \{ n: 1024")
    modules = sorted(figures.glob("*.js"))
    assert len(modules) >= 29
    for module in modules:
        found = retyped.findall(module.read_text("utf-8"))
        assert not found, f"{module.name} types an article number itself: {found}"


@pytest.mark.parametrize(
    ("body", "kept"),
    [
        ("// why\nconst a = 1;\n  /** doc\n   * more */\nf(a);", "const a = 1;\nf(a);"),
        ("const t = `\n// inside a template\n`;\n// gone", "const t = `\n// inside a template\n`;"),
        ("f(/** @type {X} */ (a));\n// gone", "f((a));"),  # a type is for the checker
        ("g((/** @type {{a: T}[]} */ e) => e);", "g((e) => e);"),
        ('h("/** @type {X} */ (a)");', 'h("/** @type {X} */ (a)");'),  # a line with a string
        ("k = `${/** @type {X} */ (a)}`;", "k = `${/** @type {X} */ (a)}`;"),
        ("/* a\n */ const b = 2;", "/* a\n */ const b = 2;"),  # code after a block: left whole
        ("if (a) {\n  f(`\n  x`);\n  // gone\n}", "if (a) {\nf(`\n  x`);\n}"),  # a literal's own
        ('a(); // gone\nb("x // kept"); // it\'s gone too', 'a();\nb("x // kept");'),
        ("c('it\\'s'); // the quote's", "c('it\\'s');"),  # an escaped quote inside
        ("d(a / b); // a slash before: it's kept", "d(a / b); // a slash before: it's kept"),
        ("e(/[\"']/g); // a pattern's quote", "e(/[\"']/g); // a pattern's quote"),
        (
            "t = `a`; // kept: a backtick\nu = `\n  v // text`;",
            "t = `a`; // kept: a backtick\nu = `\n  v // text`;",
        ),
        ("const t = `;\n// an unpaired backtick", "const t = `;\n// an unpaired backtick"),
    ],
)
def test_the_bundle_drops_comment_lines_and_indentation_and_nothing_else(body, kept):
    assert quiet(body) == kept


def test_the_shipped_chunks_keep_no_comment_line(real_pages):
    for chunk in (builder.ENTRY, builder.REST):
        text = (real_pages[0] / "static" / chunk).read_text("utf-8")
        left = [line for line in text.splitlines()[1:] if line.lstrip().startswith("//")]
        assert len(left) <= 2, left[:5]  # inside template literals only


def test_the_inlined_stylesheet_drops_only_spaces_that_part_no_tokens():
    """Comments and spaces round { } ; and after : , go; a descendant's space before a
    pseudo-class, calc's spaces and a string's characters stay."""
    text = (
        "a :hover, b:not(.x) { color: rgba(1, 2, 3, 0.5); width: calc(1px + 2px); "
        'content: "a,  b: c" } /* x */'
    )
    assert builder.compact_css(text) == (
        'a :hover,b:not(.x){color:rgba(1,2,3,0.5);width:calc(1px + 2px);content:"a,  b: c"}'
    )
