"""The still of show_map (shown before the live widget, and alone in an untrusted or
nbclient-executed notebook) labels both axes with the tokens, every k-th when many, as the
live map does: the PNG it was held no text, and its caption named no token, so the still
could not be read alone."""

from __future__ import annotations

import base64
import re

import numpy as np

from selfattn.notebook import show_map


def svg_of(still: str) -> str:
    found = re.search(r'src="data:image/svg\+xml;base64,([^"]+)"', still)
    assert found, "the still is an SVG holding its labels"
    return base64.b64decode(found[1]).decode("utf-8")


def texts(svg: str) -> list[str]:
    return re.findall(r"<text[^>]*>([^<]*)</text>", svg)


def causal(n: int, k: int = 0) -> np.ndarray:
    w = np.tril(np.random.default_rng(k).random((n, n))).astype(np.float32)
    return w / w.sum(1, keepdims=True)


def test_every_token_labels_both_axes_of_a_short_map() -> None:
    tokens = ["the", "cat", "ate", "and", "it", "ran", "<b>&"]
    svg = svg_of(show_map(causal(7), tokens)._still())
    shown = texts(svg)
    assert shown == [*tokens[:-1], "&lt;b&gt;&amp;"] * 2  # queries down, then keys across
    assert "rotate(-90)" in svg and "data:image/png;base64," in svg


def test_a_rectangular_map_labels_its_keys_with_key_tokens() -> None:
    w = np.full((3, 4), 0.25)
    svg = svg_of(
        show_map(w, ["le", "chat", "mange"], key_tokens=["the", "cat", "eats", "."])._still()
    )
    assert texts(svg) == ["le", "chat", "mange", "the", "cat", "eats", "."]


def test_a_long_map_labels_every_kth_token_from_the_first() -> None:
    n = 1024
    svg = svg_of(show_map(causal(n), [f"w{i}" for i in range(n)])._still())
    shown = texts(svg)
    rows = shown[: len(shown) // 2]
    assert 10 < len(rows) < 60 and rows[0] == "w0"
    step = int(rows[1][1:])
    assert rows == [f"w{i}" for i in range(0, n, step)]
    # labels 12 px apart at least, on a picture at most 480 px tall
    height = float(re.search(r'<image[^>]*height="(\d+)"', svg)[1])
    assert step * height / n >= 12
