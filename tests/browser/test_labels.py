"""Label hygiene: no figure label is clipped by its picture's edge or sits on another label.

Every figure is walked through its controls as a reader would (Home, a few Page Up, End
on each slider and handle; every switch, choice and button), at 1280 px and 390 px, in
both languages, and after each step every visible SVG <text> is measured.
"""

from __future__ import annotations

import pytest

from .conftest import open_page

# Measured in the page: each visible label's box against its SVG's box and against every
# other visible label of the same SVG. A box may spill half a pixel (anti-aliasing); two
# labels overlap when their boxes share more than 3 px of height and 1 px of width
# (glyph boxes include the font's ascent and descent, which never touch).
MEASURE = """(id) => {
  const fig = document.getElementById(id);
  const visible = (el, svg) => {
    if (!el.textContent.trim() || el.getClientRects().length === 0) return false;
    for (let e = el; e && e !== svg.parentElement; e = e.parentElement) {
      const s = getComputedStyle(e);
      if (s.display === "none" || s.visibility !== "visible") return false;
      if (Number(s.opacity) === 0) return false;
    }
    return true;
  };
  const problems = [];
  for (const svg of fig.querySelectorAll(".stage svg")) {
    if (svg.getClientRects().length === 0) continue;
    const frame = svg.getBoundingClientRect();
    const texts = [...svg.querySelectorAll("text")].filter((t) => visible(t, svg));
    const boxes = texts.map((t) => ({ t, r: t.getBoundingClientRect() }));
    for (const { t, r } of boxes) {
      const out = (a, b) => a > b + 0.5;
      if (out(frame.left, r.left) || out(r.right, frame.right)
        || out(frame.top, r.top) || out(r.bottom, frame.bottom)) {
        problems.push(`clipped "${t.textContent}"`);
      }
    }
    for (let a = 0; a < boxes.length; a += 1) {
      for (let b = a + 1; b < boxes.length; b += 1) {
        const p = boxes[a].r, q = boxes[b].r;
        const w = Math.min(p.right, q.right) - Math.max(p.left, q.left);
        const h = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
        const [ta, tb] = [boxes[a].t.textContent, boxes[b].t.textContent];
        if (w > 1 && h > 3) problems.push(`"${ta}" on "${tb}"`);
      }
    }
  }
  return problems;
}"""

CONTROLS = """(id) => {
  const stage = document.getElementById(id).querySelector(".stage");
  const all = [...stage.querySelectorAll("input, button, [role=slider][tabindex]")];
  return all.map((el, k) => {
    el.dataset.walk = String(k);
    const kind = el.matches("input[type=range], [role=slider]") ? "slider"
      : el.matches("input[type=checkbox]") ? "toggle"
      : el.matches("input[type=radio]") ? "choice" : "button";
    return kind;
  });
}"""


def walk(page, figure_id: str) -> list[str]:
    """Drive every control of one figure; the problems seen at each stop, with the stop."""
    problems: list[str] = []

    def look(where: str) -> None:
        page.evaluate(
            "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
        )
        problems.extend(f"{figure_id} {where}: {p}" for p in page.evaluate(MEASURE, figure_id))

    look("at rest")
    for k, kind in enumerate(page.evaluate(CONTROLS, figure_id)):
        control = page.locator(f"#{figure_id} [data-walk='{k}']")
        if not control.is_visible():
            continue
        if kind == "slider":
            control.focus()
            for key in ["Home", "PageUp", "PageUp", "PageUp", "End"]:
                page.keyboard.press(key)
                look(f"control {k} after {key}")
        elif kind == "toggle" or kind == "choice":
            control.click()
            look(f"control {k} clicked")
        else:
            for press in range(8):
                if control.get_attribute("aria-disabled") == "true" or control.is_disabled():
                    break
                control.click()
                look(f"control {k} pressed {press + 1}×")
    return problems


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("lang", ["", "en/"], ids=["zh", "en"])
def test_no_label_is_clipped_or_covered_in_any_state(browser, site_url, lang, width):
    watched = open_page(browser, site_url + lang, width=width, reduced_motion="reduce")
    page = watched.page
    # predictions wait for a guess with the picture blurred: skip them all first
    for skip in page.locator(".predict .skip").all():
        skip.click()
    ids = page.evaluate("[...document.querySelectorAll('figure[data-figure]')].map(f => f.id)")
    problems = [p for figure_id in ids for p in walk(page, figure_id)]
    assert watched.errors == []
    watched.page.context.close()
    assert problems == [], f"{len(problems)} label problems:\n" + "\n".join(problems[:80])
