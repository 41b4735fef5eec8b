"""Tokens a real tokenizer can hand over: HTML's comment and script openers in a saved map,
and controls that reverse the text around them (issue 48)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import Browser

from selfattn.notebook import show_map
from selfattn.notebook.tokens import readable

from .test_standalone import causal_weights

HOSTILE = ["<!--", "<script>", "x", "</script>", "&amp;", "\u2028"]


def data_of(path: Path) -> str:
    text = path.read_text("utf-8")
    found = re.search(
        r'<script type="application/json" id="selfattn-data">(.*?)</script>', text, re.S
    )
    assert found, "the saved page has no data"
    return found.group(1)


def test_the_saved_data_holds_no_character_the_html_parser_reads(tmp_path: Path) -> None:
    path = show_map(causal_weights(6), HOSTILE).save_html(tmp_path / "map.html")
    data = data_of(path)
    for c in "<>&\u2028\u2029":
        assert c not in data
    assert json.dumps(HOSTILE)[1:-1] in json.dumps(json.loads(data))  # the tokens, intact


def test_a_map_of_comment_and_script_tokens_opens_and_draws(
    browser: Browser, tmp_path: Path
) -> None:
    path = show_map(causal_weights(3), ["<!--", "<script>", "x"]).save_html(tmp_path / "map.html")
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    page.wait_for_selector(".selfattn-nb[data-draw-ms]", timeout=10_000)  # blank before
    assert not errors
    page.close()


def test_a_bidirectional_control_is_shown_not_obeyed() -> None:
    shown = readable(["cat", "\u202etac", "a\u2067b\u2069", "\u200f"])
    assert shown == ["cat", "\\u202etac", "a\\u2067b\\u2069", "\\u200f"]
    assert not any(
        0x202A <= ord(c) <= 0x202E or 0x2066 <= ord(c) <= 0x2069 for s in shown for c in s
    )


# -- hostile pass 4: text UTF-8 cannot write, and characters that draw nothing ----------

LONE = "caf\udce9"  # a lone surrogate: bytes decoded with "surrogateescape", or a cut emoji
LONE_SHOWN = "caf\\udce9"


def test_a_title_utf8_cannot_write_is_saved_escaped_in_every_view(tmp_path: Path) -> None:
    from selfattn.notebook import show_compare, show_tokens

    w = causal_weights(3)
    saved = {
        "map": show_map(w, ["a", LONE, "c"], title=LONE),
        "tokens": show_tokens(w, ["a", "b", "c"], title=LONE),
        "compare": show_compare(w, w, ["a", LONE, "c"], names=(LONE, "B")),
        "heads": show_map(np.stack([w, w]), ["a", "b", "c"], heads=[0, 1], title=LONE),
    }
    for kind, view in saved.items():
        path = view.save_html(tmp_path / f"{kind}.html")
        text = path.read_text("utf-8")  # raised UnicodeEncodeError before, and left it empty
        assert "caf\\\\udce9" in data_of(path), kind  # shown as its escape, not as U+FFFD
        if kind != "compare":
            assert "<title>caf\\udce9</title>" in text, kind


def test_a_save_that_fails_leaves_the_file_that_was_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = show_map(causal_weights(3), ["a", "b", "c"]).save_html(tmp_path / "map.html")
    before = path.read_bytes()

    def interrupted(*_: object) -> None:  # Ctrl-C as the new page is put in place
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        show_map(causal_weights(3), ["a", "b", "c"], title=LONE).save_html(path)
    assert path.read_bytes() == before  # empty before: opened, then the title failed to encode
    assert sorted(p.name for p in tmp_path.iterdir()) == ["map.html"]  # no temporary left


def test_characters_that_draw_nothing_or_a_box_are_shown_visibly() -> None:
    tokens = ["\u2028", "\u2029", "\ufeff", "\x00", "\x7f", "a\x01b", "\u0085", LONE]
    shown = readable(tokens)
    assert shown == [
        "\\u2028",
        "\\u2029",
        "\\ufeff",
        "\\x00",
        "\\x7f",
        "a\\x01b",
        "\\x85",
        LONE_SHOWN,
    ]


def test_the_live_widgets_title_is_text_utf8_can_write() -> None:
    m = show_map(causal_weights(3), ["a", "b", "c"], title=LONE)
    assert m.title == LONE_SHOWN
    m.title = "x\udcff"
    assert m.title == "x\\udcff"


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_a_head_with_a_value_that_is_no_number_is_refused_saying_where(bad):
    """show(q, k, v) wrote a NaN or an infinity into the saved page as bare NaN, which JSON
    cannot read: the page drew nothing. Refused, naming the array and the place."""
    from selfattn.notebook import show

    q = np.ones((3, 2))
    q[1, 0] = bad
    with pytest.raises(ValueError, match=r"q holds .* at \(1, 0\)"):
        show(q, np.ones((3, 2)), np.ones((3, 2)), tokens=["a", "b", "c"])


# -- hostile pass 6: a title or a map's name that reverses the heading or draws a box ---------


def test_a_title_and_names_with_bidi_or_control_characters_are_shown_as_escapes(
    tmp_path: Path,
) -> None:
    from selfattn.notebook import show_compare

    w = causal_weights(3)
    m = show_map(w, ["a", "b", "c"], title="safe \u202etxt.exe\u202c\x00")
    assert m.title == "safe \\u202etxt.exe\\u202c\\x00"  # the live widget's state
    c = show_compare(w, w, ["a", "b", "c"], names=("A\u202eBC", "B\x00\u2028"))
    assert c.names == ["A\\u202eBC", "B\\x00\\u2028"]
    for view, name in ((m, "map"), (c, "compare")):
        text = view.save_html(tmp_path / f"{name}.html").read_text("utf-8")
        assert not re.search("[\u202a-\u202e\u2066-\u2069\x00]", text), name


INVISIBLE = [0x00AD, 0x200D, 0x034F, 0x180E, 0xFFF9, 0xFFFA, 0xFFFB, 0xE0001, 0xE0041, 0xE007F]
INVISIBLE += [0x115F, 0x1160, 0x3164, 0xFFA0]


@pytest.mark.parametrize("code", INVISIBLE, ids=[f"U+{c:04X}" for c in INVISIBLE])
def test_every_character_that_draws_nothing_is_shown_as_its_escape(code: int) -> None:
    """Hostile pass, low 14: the soft hyphen, a joiner, the Mongolian vowel separator, the
    interlinear annotations, the tags and the Hangul fillers passed through labels unseen."""
    escape = f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"
    assert readable(["cat", f"a{chr(code)}b"]) == ["cat", f"a{escape}b"]


def test_an_emojis_own_joiner_is_kept() -> None:
    family = ["👩\u200d🚀", "👩🏽\u200d🚀", "🏳\ufe0f\u200d🌈"]  # as the emoji it joins are kept
    assert readable(family) == family
    assert readable(["\u200d", "a\u200d🚀"]) == ["\\u200d", "a\\u200d🚀"]


def test_a_weight_that_overflows_a_summary_still_gives_a_page_json_parse_reads(tmp_path):
    """Hostile pass 7: a 3e38 weight made show_heads' entropy -inf, written `-Infinity`, which
    is no JSON: `JSON.parse` threw and the saved page opened blank."""
    from selfattn.notebook import show_heads

    weights = np.array([[[[3e38, 0], [0.5, 0.5]]]], np.float32)
    page = show_heads(weights, ["a", "b"]).save_html(tmp_path / "heads.html").read_text()
    data = re.search(r'id="selfattn-data">(.*?)</script>', page, re.S)
    assert data is not None

    def no_constant(name: str) -> None:
        raise AssertionError(f"{name} in the page's JSON")

    json.loads(data.group(1), parse_constant=no_constant)


def test_a_row_holding_nan_is_said_to_sum_to_nan_not_zero():
    """Hostile pass 7: `m.failed` printed a NaN row's sum as `row 0: 0.0000` (its cleaned sum)."""
    failed = show_map(np.array([[np.nan, 0], [0.5, 0.5]]), ["a", "b"]).failed
    assert any("row 0: nan" in f for f in failed) and not any("0.0000" in f for f in failed)
