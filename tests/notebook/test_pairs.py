"""Rectangular maps: cross-attention (a decoder's queries over an encoder's keys) and one
sentence of a pair attending to the other, in the map, lines, heads and compare views, queries
labelled by `tokens` and keys by `key_tokens`."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import Browser

from selfattn.notebook import show_compare, show_heads, show_lines, show_map
from tests.notebook.test_standalone import open_file, readout

QUERIES = ["le", "chat", "a", "mangé", "et", "il", "courait"]  # the decoder's 7
KEYS = ["the", "cat", "ate", "and", "ran"]  # the encoder's 5


def cross(heads: int = 2, seed: int = 0) -> np.ndarray:
    """(heads, 7, 5) softmax weights: every query over every key, no mask."""
    scores = np.random.default_rng(seed).normal(size=(heads, 7, 5)) * 2
    w = np.exp(scores - scores.max(-1, keepdims=True))
    return w / w.sum(-1, keepdims=True)


def test_a_cross_attention_map_is_checked_and_labelled_on_both_axes() -> None:
    m = show_map(cross(), QUERIES, key_tokens=KEYS)
    assert m.shape == [2, 7, 5] and m.tokens == QUERIES and m.key_tokens == KEYS
    assert m.failed == [] and not m.causal
    broken = cross()
    broken[1, 3, 2] += 0.5
    assert show_map(broken, QUERIES, key_tokens=KEYS).failed == [
        "weights[1]: rows sum to 1: 1 row not summing to 1 (row 3: 1.5000)"
    ]
    assert show_map(cross(), QUERIES).key_tokens == ["0", "1", "2", "3", "4"]  # keys unnamed
    with pytest.raises(ValueError, match="causal=True needs a square map"):
        show_map(cross(), QUERIES, key_tokens=KEYS, causal=True)
    with pytest.raises(ValueError, match="4 key_tokens for a map of 5 keys"):
        show_map(cross(), QUERIES, key_tokens=KEYS[:4])
    heads = show_heads(cross(), QUERIES, key_tokens=KEYS)
    assert heads.side == 7 and len(heads.thumbs) == 2 * 7 * 7  # square pictures, padded
    lines = show_lines(cross(), QUERIES, key_tokens=KEYS, head=1)
    assert "lines to keys 0–4" in lines._still()


def test_a_sentence_pair_in_the_browser_queries_down_keys_across(
    browser: Browser, tmp_path: Path
) -> None:
    m = show_map(cross(), QUERIES, key_tokens=KEYS)
    page, foreign, errors = open_file(browser, m.save_html(tmp_path / "pair.html"))
    assert page.locator("g.cell").count() == 7 * 5
    columns = page.locator(".grid-label:not(.row)").all_text_contents()
    rows = page.locator(".grid-label.row").all_text_contents()
    assert columns[-5:] == KEYS and rows == QUERIES
    page.locator('g.cell[data-row="chat"][data-column="ran"]').hover()
    assert readout(page, "hover").startswith("chat → ran: ")
    assert readout(page, "top").split()[0] in KEYS
    assert foreign == [] and errors == []
    page.close()
    lines = show_lines(cross(), QUERIES, key_tokens=KEYS)
    page, foreign, errors = open_file(browser, lines.save_html(tmp_path / "lines.html"))
    assert page.locator("text.key-label").all_text_contents() == KEYS
    assert page.locator("text.query-label").count() == 7
    assert readout(page, "lines").split(": most weight on ")[1].split()[0] in KEYS
    assert foreign == [] and errors == []
    page.close()


def test_a_comparison_of_two_cross_attention_maps_labels_keys_by_the_key_sentence(
    browser: Browser, tmp_path: Path
) -> None:
    a, b = cross(seed=0), cross(seed=1)
    m = show_compare(a, b, QUERIES, key_tokens=KEYS)
    assert m.tokens == QUERIES and m.key_tokens == KEYS and m.shape == [2, 7, 5]
    d = b[0] - a[0]
    i, j = np.unravel_index(np.abs(d).argmax(), d.shape)
    largest = f"{i} · {QUERIES[i]} → {j} · {KEYS[j]}"  # with positions, as the map names a cell
    # one quantity named once: the picture's |B − A| locates it, its signed value says which way
    assert f"for 7 queries × 5 keys; the largest |B − A| is at {largest}, where B − A = " in (
        m._still()
    )
    assert repr(m).startswith("<Compare: 7 queries × 5 keys, shape (2, 7, 5)")  # said 7 tokens
    assert show_compare(a, b, QUERIES).key_tokens == ["0", "1", "2", "3", "4"]  # keys unnamed
    with pytest.raises(ValueError, match="4 key_tokens for a map of 5 keys"):
        show_compare(a, b, QUERIES, key_tokens=KEYS[:4])
    page, foreign, errors = open_file(browser, m.save_html(tmp_path / "compare-pair.html"))
    assert "7 queries × 5 keys" in page.locator(".nb-title").inner_text()
    assert page.locator("canvas").first.get_attribute("aria-label") == "A: 7 queries by 5 keys"
    assert readout(page, "largest").startswith(f"largest difference: {largest},")
    # the pointer over each key of the last query: the readout names that key, with its weights
    box = page.locator('[data-panel="b"] canvas').bounding_box()
    assert box
    seen = set()
    for x in np.linspace(0.45, 0.97, 12):
        page.mouse.move(box["x"] + box["width"] * x, box["y"] + box["height"] * 0.97)
        said = readout(page, "hover")
        if not said:
            continue
        query, rest = said.split(" → ")
        key, weights = rest.split(": ", 1)
        assert query == QUERIES[-1] and key in KEYS, said
        k = KEYS.index(key)
        assert weights.startswith(f"A {a[0, 6, k]:.3f} · B {b[0, 6, k]:.3f}"), said
        assert readout(page, "tip") == said
        seen.add(key)
    assert seen >= {"cat", "ran"}
    # at the right-hand map's last key the tip stands left of the pointer, inside the maps' row
    box = page.locator('[data-panel="diff"] canvas').bounding_box()
    row = page.locator(".panels").bounding_box()
    assert box and row
    x = box["x"] + box["width"] * 0.92
    page.mouse.move(x, box["y"] + box["height"] * 0.92)
    assert readout(page, "tip").startswith("courait → ran: ")
    tip = page.locator('[data-readout="tip"]').bounding_box()
    assert tip and row["x"] <= tip["x"] and tip["x"] + tip["width"] < x
    assert foreign == [] and errors == []
    page.close()


def test_several_heads_side_by_side_and_a_jump_to_any_layer(
    browser: Browser, tmp_path: Path
) -> None:
    from tests.notebook.test_standalone import causal_weights

    stack = np.stack([[causal_weights(30, 3 * la + h) for h in range(3)] for la in range(12)])
    stack[9, 2, 4, 7] = 0.3  # layer 9, head 2 leaks
    m = show_map(stack, [f"w{i}" for i in range(30)], heads=[(0, 1), (9, 2), (11, 0)])
    assert m.picked == [[0, 1], [9, 2], [11, 0]] and len(m.scales) == 3
    assert "weights[0, 1], weights[9, 2], weights[11, 0], side by side" in m._still()
    with pytest.raises(ValueError, match="heads= holds"):
        show_map(stack, heads=[(12, 0)])
    page, foreign, errors = open_file(browser, m.save_html(tmp_path / "several.html"))
    names = page.locator(".panel-name").all_text_contents()
    assert names == [
        "layer 0 · head 1",
        "layer 9 · head 2 · breaks an invariant",
        "layer 11 · head 0",
    ]
    assert page.locator(".panel canvas").count() == 3
    box = page.locator('[data-panel="9,2"] canvas').bounding_box()
    assert box
    page.mouse.move(box["x"] + box["width"] * 0.6, box["y"] + box["height"] * 0.8)
    assert readout(page, "hover").count(" · ") == 2  # every head's weight on that cell
    assert foreign == [] and errors == []
    page.close()
    # the map's compact picker: straight to layer 9 of 12, no eleven clicks
    one = show_map(stack, [f"w{i}" for i in range(30)])
    one.layer, one.head = 0, 0
    page, foreign, errors = open_file(browser, one.save_html(tmp_path / "jump.html"))
    page.get_by_label("jump to layer").select_option("9")
    page.get_by_label("jump to head").select_option("2")
    assert readout(page, "layer") == "9 of 0–11" and readout(page, "head") == "2 of 0–2"
    assert page.locator(".checks .failed").count() == 1
    assert foreign == [] and errors == []
    page.close()


def test_the_text_tinted_by_one_querys_weights_with_its_top_keys(
    browser: Browser, tmp_path: Path
) -> None:
    from selfattn.notebook import show_tokens
    from tests.notebook.test_standalone import causal_weights

    words = ["the", "cat", "ate", "and", "it", "ran", "because", "it", "was", "hungry"]
    w = causal_weights(10, 4)
    w[4] = 0
    w[4, 1], w[4, 4] = 0.8, 0.2  # "it" looks back at "cat"
    m = show_tokens(w, words, row=4)
    assert m.kind == "tokens" and m.row == 4
    assert "query 4 · it; its top keys: cat 0.800, it 0.200" in m._still()
    page, foreign, errors = open_file(browser, m.save_html(tmp_path / "tokens.html"))
    assert page.locator(".tint").all_text_contents() == words
    assert page.locator("ol.top-keys li").all_text_contents()[:2] == ["cat 0.800", "it 0.200"]
    cat = page.locator('.tint[data-key="1"]').evaluate("e => getComputedStyle(e).backgroundColor")
    ran = page.locator('.tint[data-key="5"]').evaluate("e => getComputedStyle(e).backgroundColor")
    assert cat != ran  # tinted by weight: the future, 0 under the causal mask, is not
    page.locator('.tint[data-key="7"]').hover()  # another query
    assert readout(page, "query").startswith("query 7 · it:")
    assert foreign == [] and errors == []
    page.close()


def test_several_heads_overlaid_in_one_lines_view(browser: Browser, tmp_path: Path) -> None:
    from tests.notebook.test_standalone import causal_weights

    stack = np.stack([[causal_weights(8, 3 * la + h) for h in range(3)] for la in range(2)])
    m = show_lines(stack, [f"w{i}" for i in range(8)], heads=[(0, 0), (1, 2)])
    m.row = 7
    page, foreign, errors = open_file(browser, m.save_html(tmp_path / "overlaid.html"))
    dashes = {
        line.get_attribute("stroke-dasharray") for line in page.locator("line.weight-line").all()
    }
    assert dashes >= {"", "7 4"}  # each head's lines in its own dash, none in a hue of its own
    assert page.locator("svg.lines-view line.weight-line").count() == 16  # 8 keys, 2 heads
    assert readout(page, "overlaid").split() == [
        "layer",
        "0",
        "·",
        "head",
        "0",
        "layer",
        "1",
        "·",
        "head",
        "2",
    ]
    assert readout(page, "lines").startswith("layer 0 · head 0, query 7 · w7:")
    # the header names the heads overlaid, not a stepper's "layer 0 of 0–1 · head 0 of 0–2"
    assert readout(page, "heads") == "overlaid: layer 0 · head 0, layer 1 · head 2"
    assert page.locator('[data-readout="layer"]').count() == 0
    assert foreign == [] and errors == []
    page.close()


def test_a_sentence_pair_block_is_checked_as_part_of_its_rows(tmp_path: Path) -> None:
    # BERT-style [CLS] A [SEP] B [SEP]: one sentence's queries over the other's keys
    full = cross(heads=1, seed=3)[0]  # (7, 5): rows sum to 1 over all five keys
    block = full[1:4, 2:5]  # queries 1-3 over keys 2-4: parts of rows
    assert show_map(block, QUERIES[1:4], key_tokens=KEYS[2:5]).failed  # as whole rows, they fail
    m = show_map(block, QUERIES[1:4], key_tokens=KEYS[2:5], part=True)
    assert m.failed == [] and m.checks[-1]["invariant"] == "rows sum to at most 1"
    over = block.copy()
    over[0] += 0.5
    assert show_map(over, QUERIES[1:4], key_tokens=KEYS[2:5], part=True).failed == [
        f"weights: rows sum to at most 1: 1 row summing past 1 (row 0: {over[0].sum():.4f})"
    ]
    m.save_html(tmp_path / "block.html", bits=8)  # its rows stored as they are, not renormalised
