// What a reader's eye meets in one figure, measured in the page (bench/figures_audit.py and
// tests/browser/test_layout.py): the picture's width (its drawings from leftmost to rightmost
// edge) over the figure's, labels rendered under 11 and 12 px (a word under 12 and a number
// under 11 is `small`), the read-out line and its numbers that repeat a label of the picture,
// the figure's height, and labels drawn on a mark. A label is on a mark
// when a sampled point of the mark's stroke falls inside the label's ink box, or the mark's
// fill covers a point of it; gridlines and the focus wash are ground, not marks, and a
// rect that holds its label whole (a chip, a tile) is the label's own plate.
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
  const out = { id, width: 0, column: fig.getBoundingClientRect().width, height: fig.getBoundingClientRect().height,
    small11: [], small12: [], small: [], readouts: [], repeats: [], hits: [] };
  let left = Infinity, right = -Infinity;
  // a number (a tick, a value on a bar or in a cell) may be set a step smaller than a word
  const numeric = (s) => /^[\s\d.,−\-+×⁰¹²³⁴⁵⁶⁷⁸⁹⁻%<>∞/:°]*$/.test(s);
  const svgTexts = [];
  for (const svg of fig.querySelectorAll(".stage svg")) {
    if (!shown(svg, fig) || svg.closest(".swatch") || svg.classList.contains("swatch")) continue;
    const box = svg.getBoundingClientRect();
    if (box.width < 40) continue;
    left = Math.min(left, box.left);
    right = Math.max(right, box.right);
    out.width = right - left;
    const texts = [...svg.querySelectorAll("text")].filter((t) => t.textContent.trim() && shown(t, svg));
    const marks = [...svg.querySelectorAll("line, polyline, polygon, path, circle, ellipse, rect")].filter((m) => {
      if (!shown(m, svg) || m.closest("text, defs, marker, clipPath, mask")) return false;
      if (m.matches(".wash, .wash *, .hit, .hit *, .gridline")) return false;
      return true;
    });
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
    const boxes = texts.map((t) => {
      const r = t.getBoundingClientRect();
      // the glyph box holds the font's ascent and descent: the ink is the middle of it
      const inset = r.height * 0.22;
      return { t, l: r.left + 1, r: r.right - 1, top: r.top + inset, b: r.bottom - inset };
    });
    const inside = (p, q) => p.x > q.l && p.x < q.r && p.y > q.top && p.y < q.b;
    for (const m of marks) {
      const s = getComputedStyle(m);
      const stroked = s.stroke !== "none" && parseFloat(s.strokeWidth) > 0 && Number(s.strokeOpacity) > 0;
      const filled = s.fill !== "none" && Number(s.fillOpacity) > 0.05 && !/rgba\(.*, 0\)$/.test(s.fill);
      const ctm = m.getScreenCTM();
      if (!ctm) continue;
      const inv = ctm.inverse();
      const total = m.getTotalLength ? m.getTotalLength() : 0;
      const step = Math.max(0.5, 1.5 / Math.max(ctm.a, 0.01));
      const pts = [];
      if (stroked && total > 0) {
        for (let l = 0; l <= total; l += step) pts.push(new DOMPoint(m.getPointAtLength(l).x, m.getPointAtLength(l).y).matrixTransform(ctm));
      }
      for (const q of boxes) {
        if (m.parentElement && q.t.parentElement === m.parentElement && m.tagName === "rect" && filled) {
          // a label's own plate (a chip, a box it is written in) is not a mark under it
          const r = m.getBoundingClientRect();
          if (r.left <= q.l && r.right >= q.r && r.top <= q.top && r.bottom >= q.b && !m.matches(".bar, .square")) continue;
        }
        let hit = pts.some((p) => inside(p, q));
        if (!hit && filled && m.isPointInFill) {
          for (let i = 1; i < 6 && !hit; i += 1) for (let j = 1; j < 4 && !hit; j += 1) {
            const p = new DOMPoint(q.l + ((q.r - q.l) * i) / 6, q.top + ((q.b - q.top) * j) / 4).matrixTransform(inv);
            hit = m.isPointInFill(p);
          }
        }
        if (hit) out.hits.push(`"${q.t.textContent.trim()}" on ${m.tagName}.${[...m.classList].join(".") || (m.parentElement.getAttribute("class") || "").split(" ").join(".")}`);
      }
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
