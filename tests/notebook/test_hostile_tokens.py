"""Tokens a real tokenizer can hand over: HTML's comment and script openers in a saved map,
and controls that reverse the text around them (issue 48)."""

from __future__ import annotations

import json
import re
from pathlib import Path

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
