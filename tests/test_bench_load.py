"""The load bench's two references are written from the page they stand beside."""

from pathlib import Path

from bench.load import PROSE_MODULE, blank_page, prose_page

PAGE = """<!doctype html><html lang="zh"><head><style>p { color: red; }</style>
<script type="module" src="../static/js/main.js"></script></head>
<body><h1>自注意力</h1><p>prose</p>
<figure id="F01" data-module="js/figures/F01.js"><div class="stage"></div></figure>
<figure id="F02" data-module="js/figures/F02.js"><div class="stage"></div></figure>
<script type="module" src="../static/js/late.js"></script></body></html>
"""


def site_with_page(tmp_path: Path) -> Path:
    (tmp_path / "static" / "js").mkdir(parents=True)
    (tmp_path / "static" / "js" / "main.js").write_text("export const a = 1;\nlet b = 2;\n")
    (tmp_path / "en").mkdir()
    (tmp_path / "en" / "index.html").write_text(PAGE, "utf-8")
    return tmp_path


def test_prose_page_is_the_page_with_one_module_of_comments(tmp_path):
    site = site_with_page(tmp_path)
    name = prose_page(site, "en/index.html", ["/static/js/main.js"])
    assert name == "en/prose-load.html"
    text = (site / name).read_text("utf-8")
    # the page's prose, figures and stylesheet stay as they are; only its modules change
    assert text == PAGE.replace("../static/js/main.js", "./prose-load.js").replace(
        '<script type="module" src="../static/js/late.js"></script>', ""
    )
    module = (site / "en" / "prose-load.js").read_text("utf-8")
    assert module == "// export const a = 1;\n// let b = 2;\n" + PROSE_MODULE


def test_prose_page_refuses_a_page_without_modules(tmp_path):
    site = site_with_page(tmp_path)
    (site / "en" / "index.html").write_text("<p>no scripts</p>", "utf-8")
    try:
        prose_page(site, "en/index.html", [])
    except ValueError as error:
        assert "no module script" in str(error)
    else:
        raise AssertionError("a page without modules has no prose reference")


def test_blank_page_keeps_the_title_and_the_bytes_inert(tmp_path):
    site = site_with_page(tmp_path)
    name = blank_page(site, "en/index.html", ["/static/js/main.js"])
    text = (site / name).read_text("utf-8")
    assert "<h1>自注意力</h1>" in text and "<style>p { color: red; }</style>" in text
    assert '<script type="text/plain">' in text and "<\\/figure>" in text
    # its own module, and the page's only as inert text
    assert '<script type="module" src="blank-load.js"></script>' in text
    assert '<script type="module" src="../static/js/main.js"></script>' not in text
