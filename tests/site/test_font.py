"""The page's one Latin face: small, licensed, subset to the page, and what the page asks for."""

from __future__ import annotations

import html
import re
import unicodedata

import pytest

from selfattn.site.build import FONT, STATIC, build

fontTools = pytest.importorskip("fontTools.ttLib")

# Signs left out of the subset to keep the page within its weight (each is rare on the page, and
# Inter draws several of them no better than a symbol font): the reader's own fonts draw them,
# as they draw Chinese
NOT_IN_INTER = set("∝⋯∈ᵀ⊤∑✓✗▶◀▾↺↓↑↔")


def _cjk(c: str) -> bool:
    name = unicodedata.name(c, "")
    return (
        name.startswith(("CJK", "FULLWIDTH", "IDEOGRAPHIC", "HALFWIDTH"))
        or 0x3000 <= ord(c) <= 0x303F
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("font") / "site"
    build(out)
    return out


def test_the_face_is_small_and_licensed():
    font = STATIC / FONT
    assert font.stat().st_size <= 40 * 1024, f"{FONT} weighs {font.stat().st_size} bytes"
    assert "SIL Open Font License" in (font.parent / "OFL.txt").read_text("utf-8")


def test_the_face_holds_every_latin_sign_the_pages_print(site):
    """Every character of both pages and of the figures' modules that is not Chinese is in
    the subset, with tabular figures, so a label never falls back to another face midway."""
    face = fontTools.TTFont(STATIC / FONT)
    drawn = set(face.getBestCmap())
    texts = [p.read_text("utf-8") for p in (site / "index.html", site / "en" / "index.html")]
    texts += [p.read_text("utf-8") for p in (STATIC / "js").rglob("*.js")]
    used = set()
    for text in texts:
        text = re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), text)
        used |= set(html.unescape(text))
    missing = sorted(
        c
        for c in used
        if ord(c) > 0x7E
        and not _cjk(c)
        and c not in NOT_IN_INTER
        and ord(c) not in drawn
        and unicodedata.category(c)[0] != "C"
    )
    assert not missing, "not in the font: " + " ".join(f"{c} U+{ord(c):04X}" for c in missing)
    assert "tnum" in {r.FeatureTag for r in face["GSUB"].table.FeatureList.FeatureRecord}


def test_each_page_asks_for_the_face_from_its_own_folder(site):
    for page, root in (("index.html", "./"), ("en/index.html", "../")):
        text = (site / page).read_text("utf-8")
        assert f'url("{root}static/{FONT}")' in text
        assert "font-display:swap" in text
        assert (site / page).parent.joinpath(root, "static", FONT).resolve().is_file()
