"""save_html's file, opened from file:// in Chromium: offline, clean, legible, fast enough.

Draw times are printed, not asserted (budgets live in `make bench`): the machine is shared.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import Browser, Page, expect

from selfattn.notebook import show, show_map

TOKENS = ["the", "cat", "ate", "and", "it", "ran"]


def causal_weights(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    scores = np.where(np.tril(np.ones((n, n), dtype=bool)), rng.normal(size=(n, n)) * 2, -np.inf)
    w = np.exp(scores - scores.max(axis=1, keepdims=True))
    return w / w.sum(axis=1, keepdims=True)


def open_file(browser: Browser, path: Path) -> tuple[Page, list[str], list[str]]:
    """The page, with every request outside file:// and every error it raised."""
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    foreign: list[str] = []
    errors: list[str] = []
    page.on(
        "request", lambda r: r.url.startswith(("file:", "data:", "blob:")) or foreign.append(r.url)
    )
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.goto(path.as_uri())
    page.wait_for_selector(".selfattn-nb[data-draw-ms]")
    return page, foreign, errors


def readout(page: Page, name: str) -> str:
    return page.locator(f'[data-readout="{name}"]').first.inner_text()


def test_a_six_token_map_opens_offline_legible_and_answers_a_click(
    browser: Browser, tmp_path: Path
) -> None:
    path = show_map(causal_weights(6), TOKENS).save_html(tmp_path / "map6.html")
    page, foreign, errors = open_file(browser, path)
    assert foreign == [] and errors == []
    labels = page.locator(".grid-label").all()
    boxes = [label.bounding_box() for label in labels]
    assert [label.text_content() for label in labels] == TOKENS * 2
    assert all(b and b["height"] >= 11 and b["x"] >= 0 and b["y"] >= 0 for b in boxes)
    columns = sorted((b for b in boxes[6:] if b), key=lambda b: b["x"])
    assert all(a["x"] + a["width"] <= b["x"] for a, b in itertools.pairwise(columns))
    assert (
        page.locator(".cell.masked").count() == 15 and page.locator(".checks .failed").count() == 0
    )
    page.locator('g.cell[data-row="it"][data-column="cat"]').click()
    assert readout(page, "row") == "4 · it"
    page.close()


def test_a_512_token_map_draws_on_a_canvas_and_stays_responsive(
    browser: Browser, tmp_path: Path
) -> None:
    path = show_map(causal_weights(512), [f"token{i}" for i in range(512)]).save_html(
        tmp_path / "map512.html"
    )
    page, foreign, errors = open_file(browser, path)
    assert foreign == [] and errors == []
    drawn = float(page.locator(".selfattn-nb").get_attribute("data-draw-ms") or "nan")
    canvas = page.locator("canvas")
    box = canvas.bounding_box()
    assert box and box["width"] > 300
    # a pixel in the masked triangle and one on the diagonal are painted differently
    inked = page.evaluate(
        """() => {
          const c = document.querySelector('#selfattn-widget').shadowRoot.querySelector('canvas');
          const pixels = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
          return [...pixels].filter((v, i) => i % 4 === 0 && v < 128 && pixels[i + 3] > 128).length;
        }"""
    )
    assert inked > 500
    page.mouse.move(box["x"] + box["width"] * 0.6, box["y"] + box["height"] * 0.8)
    page.locator('[data-readout="hover"]').filter(has_text="→").wait_for()
    page.mouse.click(box["x"] + box["width"] * 0.6, box["y"] + box["height"] * 0.8)
    row = int(readout(page, "row").split(" ")[0])
    assert 300 < row < 511
    page.keyboard.press("ArrowDown")
    assert readout(page, "row").startswith(f"{row + 1} ")
    print(f"\n512-token map drawn in {drawn:.0f} ms (file://, shared machine)")
    page.close()


def test_every_head_is_checked_and_a_leak_turns_only_its_cells_red(
    browser: Browser, tmp_path: Path
) -> None:
    stack = np.stack([np.stack([causal_weights(6, seed) for seed in range(3)])] * 2)  # (2, 3, 6, 6)
    stack[1, 2, 1, 4] = 0.2  # the future leaks in layer 1, head 2...
    stack[1, 2, 1, stack[1, 2, 1].argmax()] -= 0.2  # ...and row cat still sums to 1
    stack[0, 1, 3, 3] += 0.5  # row and of layer 0, head 1 sums to 1.5
    widget = show_map(stack, TOKENS, causal=True)
    # it opens on the first head that breaks an invariant, numbered as Python numbers it
    assert (widget.layer, widget.head) == (0, 1) and widget.failed == [
        "weights[0, 1]: rows sum to 1: 1 row not summing to 1 (row 3: 1.5000)",
        "weights[1, 2]: causal: 1 weight above the diagonal: the future leaks",
    ]
    page, foreign, errors = open_file(browser, widget.save_html(tmp_path / "stack.html"))
    heads = page.locator('[data-readout="heads"]')
    expect(heads).to_contain_text("2 of 6 heads break an invariant")
    assert page.locator(".checks .failed").count() == 1
    assert readout(page, "layer") == "0 of 0–1" and readout(page, "head") == "1 of 0–2"
    heads.get_by_role("button", name="layer 1 · head 2: causal").click()
    expect(page.locator('[data-readout="head"]')).to_have_text("2 of 0–2")
    assert readout(page, "layer") == "1 of 0–1" and page.locator(".checks .failed").count() == 1
    assert page.locator('g.cell.leak[data-row="cat"][data-column="it"]').count() == 1
    assert page.locator(".row-sum.wrong").count() == 0  # the leaking row sums to 1
    page.get_by_label("next layer").click()  # layer 0, head 2: wraps around
    page.get_by_label("previous head").click()
    expect(page.locator('[data-readout="head"]')).to_have_text("1 of 0–2")
    expect(page.locator(".row-sum.wrong")).to_have_count(1)
    assert page.locator(".row-sum.wrong").text_content() == "1.500"
    assert foreign == [] and errors == []
    page.close()


def test_a_diffuse_map_saved_in_8_bits_names_its_true_largest_weight(
    browser: Browser, tmp_path: Path
) -> None:
    """8 bits on the map's one scale named t0 the largest at 0.004 in GPT-2's diffuse rows
    at 1,024 tokens (truly t810 at 0.00247) and stated a bound above every weight."""
    n = 300  # past 256 tokens: 8 bits by default
    rng = np.random.default_rng(5)
    scores = np.where(np.tril(np.ones((n, n), dtype=bool)), rng.normal(size=(n, n)) * 0.3, -np.inf)
    w = np.exp(scores - scores.max(axis=1, keepdims=True))
    w /= w.sum(axis=1, keepdims=True)
    widget = show_map(w, [f"t{i}" for i in range(n)])
    widget.row = row = 290
    path = widget.save_html(tmp_path / "diffuse.html")
    page, foreign, errors = open_file(browser, path)
    top = int(w[row].argmax())
    assert readout(page, "row").startswith("290 ")
    assert readout(page, "top") == f"t{top} {w[row, top]:.2g}"  # 0.0074, not 0.008
    stored = readout(page, "stored")
    assert "within 0.3" in stored or "within 0.2" in stored or "within 0.1" in stored
    assert foreign == [] and errors == []
    page.close()


def test_a_saved_file_keeps_the_heads_asked_for_and_says_how_it_stored_them(
    browser: Browser, tmp_path: Path
) -> None:
    stack = np.stack(
        [
            np.stack([causal_weights(40, seed + 3 * layer) for seed in range(3)])
            for layer in range(4)
        ]
    )  # (4, 3, 40, 40)
    widget = show_map(stack, [f"t{i}" for i in range(40)])
    path = widget.save_html(tmp_path / "kept.html", layers=[1, 3], heads=2, bits=8)
    text = path.read_text()  # the head it opens on is drawn at once, the other ungzipped later
    assert text.count('"codes": ') == 1 and text.count('"gzip": ') == 1
    page, foreign, errors = open_file(browser, path)
    assert readout(page, "layer") == "1 of 0–3" and readout(page, "head") == "2 of 0–2"
    stored = readout(page, "stored")
    assert stored.startswith("weights stored in 8 bits relative to each row's largest, each within")
    assert "float64" in stored
    page.get_by_label("next layer").click()
    expect(page.locator('[data-readout="layer"]')).to_have_text("3 of 0–3")
    page.get_by_label("next layer").click()
    expect(page.locator('[data-readout="layer"]')).to_have_text("1 of 0–3")
    assert readout(page, "sum") == "1.000"  # renormalised: the row still sums to 1
    assert foreign == [] and errors == []
    page.close()
    with pytest.raises(ValueError, match=r"layer=4: the weights hold layers 0\.\.3"):
        widget.save_html(tmp_path / "none.html", layers=[4])


def test_a_long_map_zooms_into_a_dragged_region_and_says_the_value_at_the_pointer(
    browser: Browser, tmp_path: Path
) -> None:
    path = show_map(causal_weights(300), [f"token{i}" for i in range(300)]).save_html(
        tmp_path / "map300.html"
    )
    page, foreign, errors = open_file(browser, path)
    canvas = page.locator("canvas")
    assert page.locator("[data-export]").all_text_contents() == ["PNG (the canvas, as pixels)"]
    box = canvas.bounding_box()
    assert box
    x, y = box["x"] + box["width"] * 0.4, box["y"] + box["height"] * 0.7
    page.mouse.move(x, y)
    tip = page.locator('[data-readout="tip"]')
    expect(tip).to_be_visible()
    tip_box = tip.bounding_box()
    assert tip_box and abs(tip_box["x"] - x) < 40 and abs(tip_box["y"] - y) < 40
    assert tip.inner_text() == readout(page, "hover") and "→ token" in tip.inner_text()
    row_at_pointer = int(tip.inner_text().split(" →")[0].removeprefix("token"))
    page.mouse.down()
    page.mouse.move(x + 60, y + 60, steps=4)
    page.mouse.up()
    label = canvas.get_attribute("aria-label") or ""
    assert "zoomed to queries" in label
    first, last = (int(v) for v in label.split("queries ")[1].split(" and")[0].split("–"))
    assert 10 < last - first + 1 < 120  # a region of tokens, drawn a few pixels a cell
    page.get_by_role("button", name="whole map").click()
    assert "zoomed" not in (page.locator("canvas").get_attribute("aria-label") or "")
    page.mouse.move(x, y)
    page.keyboard.down("Control")
    page.mouse.wheel(0, -100)  # Ctrl + wheel: in by 1.5 about the pointer
    page.keyboard.up("Control")
    label = page.locator("canvas").get_attribute("aria-label") or ""
    first, last = (int(v) for v in label.split("queries ")[1].split(" and")[0].split("–"))
    assert last - first + 1 == 200 and first - 1 <= row_at_pointer < last
    assert foreign == [] and errors == []
    page.close()


def test_the_head_view_projects_and_says_so(browser: Browser, tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    q, k, v = (rng.normal(size=(6, 8)) for _ in range(3))
    widget = show(q, k, v, tokens=TOKENS, mask="causal")
    page, foreign, errors = open_file(browser, widget.save_html(tmp_path / "head.html"))
    assert foreign == [] and errors == []
    assert "keeping" in readout(page, "qk-projection") and "(d = 8)" in readout(
        page, "qk-projection"
    )
    page.locator("button.token", has_text="it").click()
    assert readout(page, "row").startswith("query 4: it")
    page.close()


def test_a_real_sized_head_labels_its_axes_by_the_grid_and_no_two_labels_overlap(
    browser: Browser, tmp_path: Path
) -> None:
    rng = np.random.default_rng(5)
    q, k, v = (rng.normal(size=(14, 64)) * 2.2 for _ in range(3))
    q[:, 0] += 8  # queries reach about 15, as a trained head's do
    tokens = [
        "the",
        "cat",
        "ate",
        "and",
        "it",
        "ran",
        "because",
        "it",
        "was",
        "hungry",
        ".",
        "then",
        "it",
        "slept",
    ]
    widget = show(q, k, v, tokens=tokens, mask="causal")
    page, foreign, errors = open_file(browser, widget.save_html(tmp_path / "head.html"))
    for i in (13, 4, 9):
        page.locator("button.token").nth(i).click()
        boxes = page.evaluate(
            """() => [...document.querySelector('#selfattn-widget').shadowRoot
                .querySelectorAll('svg.plane')].map((svg) => {
                  const edge = svg.getBoundingClientRect();
                  return [...svg.querySelectorAll('text')]
                    .filter((t) => t.textContent && getComputedStyle(t).display !== 'none')
                    .map((t) => { const b = t.getBoundingClientRect();
                      return {text: t.textContent, tick: t.classList.contains('tick'),
                              x: b.x, y: b.y, r: b.right, b: b.bottom, edge: edge.right}; });
                })"""
        )
        for plane in boxes:
            ticks = [float(b["text"].replace("\u2212", "-")) for b in plane if b["tick"]]
            assert len(ticks) < 12 and all(t == round(t) for t in ticks)
            for a, b in itertools.combinations(plane, 2):
                apart = a["r"] <= b["x"] or b["r"] <= a["x"] or a["b"] <= b["y"] or b["b"] <= a["y"]
                assert apart, f"{a['text']!r} overlaps {b['text']!r}"
            assert all(b["r"] <= b["edge"] + 1 for b in plane), "a label runs off the plane"
    assert foreign == [] and errors == []
    page.close()


def test_a_map_longer_than_its_pixels_draws_each_block_by_its_largest_weight(
    browser: Browser, tmp_path: Path
) -> None:
    w = causal_weights(1300)
    w[100, 700] = 0.3  # a leak far from the diagonal, in one cell of a 3 × 3 block
    path = show_map(w, [f"t{i}" for i in range(1300)], causal=True).save_html(tmp_path / "l.html")
    page, foreign, errors = open_file(browser, path)
    canvas = page.locator("canvas")
    assert "each square the largest weight of 3 × 3 cells" in (
        canvas.get_attribute("aria-label") or ""
    )
    red = page.evaluate(
        """() => {
          const c = document.querySelector('#selfattn-widget').shadowRoot.querySelector('canvas');
          const box = c.getBoundingClientRect(), px = c.width / box.width;
          const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
          let count = 0;
          for (let i = 0; i < d.length; i += 4) if (d[i] > 150 && d[i + 1] < 90) count += 1;
          return count;
        }"""
    )
    assert red > 0  # the leak is drawn, whatever the pooling
    box = canvas.bounding_box()
    assert box
    page.mouse.click(box["x"] + box["width"] * 0.5, box["y"] + box["height"] * 0.9)
    assert readout(page, "row").split(" ")[0] in {str(i) for i in range(900, 1300)}
    assert foreign == [] and errors == []
    page.close()


# what a notebook hands the page for a widget's bytes: a DataView on the message's buffer,
# here at an offset float32 cannot be read at in place
AS_BUFFERS = """const data = JSON.parse(document.getElementById("selfattn-data").textContent);
for (const name of ["weights", "thumbs"]) {
  if (typeof data.state[name] !== "string") continue;
  const bytes = Uint8Array.from(atob(data.state[name]), (c) => c.charCodeAt(0));
  const buffer = new Uint8Array(bytes.length + 3);
  buffer.set(bytes, 3);
  data.state[name] = new DataView(buffer.buffer, 3, bytes.length);
}"""


def test_the_weights_a_notebook_sends_as_binary_buffers_draw_as_base64_ones_do(
    browser: Browser, tmp_path: Path
) -> None:
    from selfattn.notebook import assets, show_heads

    w = causal_weights(6)
    for widget, view in [
        (show_map(w, TOKENS), ".map"),
        (show_heads(w[None], TOKENS), ".heads-view"),
    ]:
        state = widget._state()
        assert isinstance(state["weights"], bytes)  # a binary buffer on the comm, not text
        text = assets.page(state).replace(
            'const data = JSON.parse(document.getElementById("selfattn-data").textContent);',
            AS_BUFFERS,
        )
        path = tmp_path / f"buffers{view[1:]}.html"
        path.write_text(text)
        page, foreign, errors = open_file(browser, path)
        assert page.locator(f".selfattn-nb{view}").count() == 1 and foreign == errors == []
        top = int(np.argmax(w[0]))
        assert readout(page, "top").endswith(f"{w[0, top]:.3f}") and readout(page, "sum") == "1.000"
        page.close()
