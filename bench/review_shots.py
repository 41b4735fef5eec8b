"""Screenshots for a figure review (`../shared/REVIEW.md`): every figure at rest and in two more
states its main control reaches, with its question answered first, as a reader sees it.

`python -m bench.review_shots OUT [slug ...] [--only en-1280-light|zh-390-dark]` builds the
article, serves it, and writes `OUT/F07-long-key-en-1280-light-1.png` and the like: 1280 × 800
English in the light theme and 390 × 844 Chinese in the dark theme (really dark: the script
checks the page's own theme, not only the browser's scheme). Install `fonts-noto-cjk` first so
the Chinese shots show a reader's fonts. A tool for people, not a test.
"""

from __future__ import annotations

import argparse
import tempfile
import threading
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

from selfattn.site.serve import make_server
from tests.harness import CHROMIUM, FLAGS

# (language, width, height, theme): the two views REVIEW.md asks for
VIEWS = {
    "en-1280-light": ("en", 1280, 800, "light"),
    "zh-390-dark": ("zh", 390, 844, "dark"),
}
STARTED = "[...document.querySelectorAll('figure[data-module]')].every(f => f.figure)"
# where the default gesture misses a figure's point: the keys pressed on its handle at a step
# (F13 and F18 pay off to the left: the score pushed to −30, the mask moved to "the"; F02's
# input turned, not stretched along itself), and the figures whose switch is their one control
KEYS = {
    "never-zero": {2: ["ArrowLeft"] * 6, 3: ["Home"]},
    "asking-position": {2: ["ArrowLeft"], 3: ["Home"]},
    "drag-input": {2: ["ArrowUp"] * 6},
}
SWITCH_FIRST = {"multiply-leak"}
# a choice to make at a step, by its value (F24 rests on the finished pass, two keys a tile:
# states 2 and 3 switch on two bugs, each landing the output elsewhere (no rescale changes nothing
# there: the max arrives in the first tile); F16's the cure, √d, at the width step 2
# reached; F11's overflow, then its cure, c = −max s)
CHOICES = {
    "tiled-pass": {2: "divide", 3: "reset"},
    "divisor": {3: "sqrt"},
    "staircase": {2: "1000", 3: "max"},
    "install": {2: "2", 3: "3"},  # F01 rests on W_Q in: then W_K, then all three
}
# a mark to point at for a step, where the figure's one button has no third state (F10's
# flip: step 3 points at the transposed cell ate→cat, whose number and tokens light up)
POINT = {
    "transpose": {3: ".cell[data-row='ate'][data-column='cat']"},
    # F19's one switch: step 2 turns × 0 on, step 3 points at ran's leaked bar, the rest dimmed
    # (turning the switch back showed state 1 again)
    "multiply-leak": {3: ".slot[data-token='ran']"},
}


def drive(page: Page, slug: str, step: int) -> None:
    """Move the figure's main control: a 2-D handle, else a slider, else a segmented choice,
    else its last button. Step 2 goes one way, step 3 further or the other way; where the
    figure has a switch (a bug on or off), step 3 turns the first one over instead."""
    fig = page.locator(f"figure#{slug}")
    switch = fig.locator("input[role=switch]")
    handle = fig.locator("[role=slider][tabindex='0']:not(input)")
    slider = fig.locator("input[type=range]")
    choice = fig.locator("input[type=radio]")
    if step in POINT.get(slug, {}):
        fig.locator(POINT[slug][step]).first.hover(force=True)
        return
    if switch.count() and not (handle.count() or slider.count() or choice.count()):
        # switches alone (F29's heads): step 2 turns the last over, step 3 the first too
        (switch.last if step == 2 else switch.first).click(force=True)
        return
    if switch.count() and step == (2 if slug in SWITCH_FIRST else 3):
        switch.first.click(force=True)
        return
    if step in CHOICES.get(slug, {}):
        fig.locator(f"input[type=radio][value='{CHOICES[slug][step]}']").check(force=True)
        return
    if step in KEYS.get(slug, {}):
        handle.first.focus()
        for key in KEYS[slug][step]:
            page.keyboard.press(key)
        return
    button = fig.locator(".controls button")
    if handle.count():
        handle.first.focus()
        if step == 3:  # the far end, where the payoff usually is (F07's overtake, F27 trained)
            before = fig.inner_html()
            page.keyboard.press("End")
            page.wait_for_timeout(100)
            if fig.inner_html() != before:
                return
        for _ in range(6):
            page.keyboard.press("ArrowRight" if step == 2 else "ArrowUp")
    elif slider.count():
        if step == 2:
            slider.first.focus()
            page.keyboard.press("End")
        else:  # half way: a slider of four stops otherwise shows its end twice
            slider.first.evaluate(
                "(s) => { s.value = String((Number(s.min) + Number(s.max)) / 2);"
                " s.dispatchEvent(new Event('input', { bubbles: true })) }"
            )
    elif choice.count():
        choice.nth(min(choice.count() - 1, step - 1)).check(force=True)
    elif button.count():
        for _ in range(step - 1):
            button.last.click(timeout=3000)


def shoot(url: str, out: Path, view: str, slugs: list[str]) -> list[str]:
    lang, width, height, theme = VIEWS[view]
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(
            viewport={"width": width, "height": height},
            color_scheme=theme,  # type: ignore[arg-type]
        )
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(url + ("en/" if lang == "en" else ""))
        page.evaluate("document.fonts.ready")
        if page.evaluate("document.documentElement.dataset.theme") != theme:
            page.locator("#theme").click()
        assert page.evaluate("document.documentElement.dataset.theme") == theme
        while not page.evaluate(STARTED):
            page.wait_for_timeout(20)
        ids = slugs or page.evaluate(
            "[...document.querySelectorAll('figure[data-module]')].map(f => f.id)"
        )
        for slug in ids:
            fig = page.locator(f"figure#{slug}")
            fig.scroll_into_view_if_needed()
            page.wait_for_timeout(300)
            skip = fig.locator(".predict .skip")
            if skip.count() and skip.first.is_visible():
                skip.first.click()
                page.wait_for_timeout(300)
            name = f"{fig.get_attribute('data-label') or slug}-{slug}-{view}"
            # the pointer off the page: left where a button was, it hovered a token and
            # dimmed the rest in the rest shots
            page.mouse.move(0, 0)
            fig.screenshot(path=str(out / f"{name}-1.png"))
            for step in (2, 3):
                try:
                    drive(page, slug, step)
                except Exception as e:  # a figure with no such control: the shot shows rest
                    errors.append(f"{slug} step {step}: {type(e).__name__}")
                if step not in POINT.get(slug, {}):  # a pointing step keeps its pointer
                    page.mouse.move(0, 0)
                page.wait_for_timeout(450)
                fig.screenshot(path=str(out / f"{name}-{step}.png"))
            box = fig.bounding_box() or {"width": 0, "height": 0}
            print(f"{name}: {box['width']:.0f} × {box['height']:.0f} px")
        browser.close()
    return errors


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("slugs", nargs="*")
    parser.add_argument("--only", choices=sorted(VIEWS))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    server = make_server("127.0.0.1", 0, Path(tempfile.mkdtemp()))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_port}/"
        for view in [args.only] if args.only else list(VIEWS):
            for error in shoot(url, args.out, view, args.slugs):
                print("error:", error)
    finally:
        server.shutdown()


if __name__ == "__main__":
    main()
