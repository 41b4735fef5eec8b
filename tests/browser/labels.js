// Label hygiene, measured in the page: for one figure, every visible SVG label whose glyph
// box runs out of its picture or shares room with another label's box. Text on marks
// (text_on_marks.js) tests the ink, the middle of the box; this tests the whole box, so
// two labels whose ascents and descents touch are already too close here. Called by
// test_labels.py after each state every_state.js reaches; returns one line per problem.
//
// A box may spill half a pixel (anti-aliasing); two labels overlap when their boxes share
// more than 3 px of height and 1 px of width.
(id) => {
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
      if (out(frame.left, r.left) || out(r.right, frame.right) || out(frame.top, r.top) || out(r.bottom, frame.bottom)) {
        problems.push(`clipped "${t.textContent}"`);
      }
    }
    for (let a = 0; a < boxes.length; a += 1) {
      for (let b = a + 1; b < boxes.length; b += 1) {
        const p = boxes[a].r,
          q = boxes[b].r;
        const w = Math.min(p.right, q.right) - Math.max(p.left, q.left);
        const h = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
        if (w > 1 && h > 3) problems.push(`box "${boxes[a].t.textContent}" on box "${boxes[b].t.textContent}"`);
      }
    }
  }
  return problems;
}
