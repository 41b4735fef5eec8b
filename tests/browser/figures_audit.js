// What a reader's eye meets in one figure, measured in the page (bench/figures_audit.py and
// tests/browser/test_layout.py): the picture's width (its drawings from leftmost to rightmost
// edge) over the figure's, labels rendered under 11 and 12 px (a word under 12 and a number
// under 11 is `small`), the read-out line and its numbers that repeat a label of the picture,
// and the figure's height. Labels drawn on a mark are counted by the collision test's own
// measure (text_on_marks.js), which figures_audit.py adds.
(id) => {
  const fig = document.getElementById(id);
  fig.scrollIntoView();
  const shown = (el, stop) => {
    if (el.getClientRects().length === 0) return false;
    for (let e = el; e && e !== stop; e = e.parentElement) {
      const s = getComputedStyle(e);
      if (s.display === "none" || s.visibility !== "visible" || Number(s.opacity) === 0) return false;
    }
    return true;
  };
  const norm = (s) => s.replace(/\s+/g, "").replace(/−/g, "-");
  const out = { id, width: 0, // the text column: a figure outset past it on a wide page (to 1040 px) need only fill the
    // column, not its whole outset, when its parts need no more
    column: Math.min(fig.getBoundingClientRect().width,
      (fig.parentElement.querySelector(":scope > p") || fig).getBoundingClientRect().width), height: fig.getBoundingClientRect().height,
    small11: [], small12: [], small: [], readouts: [], repeats: [] };
  let left = Infinity, right = -Infinity;
  out.planesOnly = true; // a picture of planes alone, each drawn at the one scale on its data's window
  // a number (a tick, a value on a bar or in a cell) may be set a step smaller than a word
  const numeric = (s) => /^[\s\d.,−\-+×⁰¹²³⁴⁵⁶⁷⁸⁹⁻%<>∞/:°]*$/.test(s);
  const svgTexts = [];
  for (const svg of fig.querySelectorAll(".stage svg")) {
    if (!shown(svg, fig) || svg.closest(".swatch") || svg.classList.contains("swatch")) continue;
    const box = svg.getBoundingClientRect();
    if (box.width < 40) continue;
    if (!svg.classList.contains("plane")) out.planesOnly = false;
    left = Math.min(left, box.left);
    right = Math.max(right, box.right);
    out.width = right - left;
    const texts = [...svg.querySelectorAll("text")].filter((t) => t.textContent.trim() && shown(t, svg));
    for (const t of texts) {
      const scale = (t.getScreenCTM() || { a: 1 }).a;
      const px = parseFloat(getComputedStyle(t).fontSize) * scale;
      const label = `${t.textContent.trim()} (${px.toFixed(1)}px)`;
      if (px < 11 - 0.05) out.small11.push(label);
      if (px < 12 - 0.05) out.small12.push(label);
      if (px < (numeric(t.textContent) ? 11 : 12) - 0.05) out.small.push(label);
      // an index or exponent is read too: 11 px at least
      for (const span of t.querySelectorAll("tspan")) {
        const spx = parseFloat(getComputedStyle(span).fontSize) * scale;
        if (span.textContent.trim() && spx < 11 - 0.05) out.small.push(`${label}: "${span.textContent}" ${spx.toFixed(1)}px`);
      }
      svgTexts.push(norm(t.textContent));
    }
  }
  // the read-out line (the controls' own names and an assertion's verdict are not in it)
  for (const r of fig.querySelectorAll(".readouts [data-readout]")) {
    if (!shown(r, fig)) continue;
    const text = norm(r.textContent);
    out.readouts.push(r.dataset.readout);
    if (text && /\d/.test(text) && svgTexts.includes(text)) out.repeats.push(`${r.dataset.readout}=${r.textContent}`);
  }
  return out;
}
