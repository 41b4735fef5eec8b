// Text drawn on a mark, measured in the page: for one figure, every visible SVG label whose
// ink touches a mark of its picture (an arrow, a line, a bar, a dot, a knob and its focus
// ring) or another label's ink, and every HTML text of the figure's controls that the
// focused control's ring crosses. Shared by the label test (test_labels.py) and
// the figures audit (bench/figures_audit.py); returns one line per hit.
//
// A label's ink is the middle of its glyph box (the box holds the font's ascent and descent).
// A stroke touches it when a point sampled along the stroke, every 1.5 px, comes within half
// the stroke's width of the ink; a solid fill touches it when it covers a point of the ink.
// Ground is not a mark: gridlines, the focus wash, a touch target, a faint area (a hull, a
// band) by its fill, and a plate a label is written on whole (a chip, a cell). A plane
// label's leader (kit/place.js) is a mark like any line, to every label, its own too: it
// starts just off its label's box, so a label on any leader is a hit.
(id) => {
  const fig = document.getElementById(id);
  const shown = (el, stop) => {
    if (el.getClientRects().length === 0) return false;
    for (let e = el; e && e !== stop; e = e.parentElement) {
      const s = getComputedStyle(e);
      if (s.display === "none" || s.visibility !== "visible" || Number(s.opacity) === 0) return false;
    }
    return true;
  };
  // the opacity a mark is painted with: its own and its ancestors' up to the picture
  const opacity = (el, stop) => {
    let o = 1;
    for (let e = el; e && e !== stop; e = e.parentElement) o *= Number(getComputedStyle(e).opacity);
    return o;
  };
  const ink = (r) => {
    const inset = r.height * 0.22;
    return { l: r.left + 1, r: r.right - 1, top: r.top + inset, b: r.bottom - inset };
  };
  const name = (t) => `"${t.textContent.trim()}"`;
  // how far past a mark's box its stroke may reach, in px: more than half the widest stroke
  // drawn (query-meets-keys's 12 px shadow), scaled up with its picture
  const NEAR = 16;
  // points every 1.5 px along a mark's outline, on the screen: a line's by its ends (asking
  // a path for each point walks it from the start, slow on a long one)
  const along = (m, ctm, scale) => {
    const step = Math.max(0.25, 1.5 / Math.max(scale, 0.01));
    const pts = [];
    if (m instanceof SVGLineElement) {
      const [x1, y1, x2, y2] = [m.x1, m.y1, m.x2, m.y2].map((a) => a.baseVal.value);
      const total = Math.hypot(x2 - x1, y2 - y1);
      for (let l = 0; l <= total; l += step) {
        const f = total ? l / total : 0;
        pts.push(new DOMPoint(x1 + (x2 - x1) * f, y1 + (y2 - y1) * f).matrixTransform(ctm));
      }
      return pts;
    }
    const total = m.getTotalLength ? m.getTotalLength() : 0;
    for (let l = 0; total > 0 && l <= total; l += step) {
      const p = m.getPointAtLength(l);
      pts.push(new DOMPoint(p.x, p.y).matrixTransform(ctm));
    }
    return pts;
  };
  const hits = [];
  for (const svg of fig.querySelectorAll(".stage svg")) {
    if (!shown(svg, fig) || svg.closest(".swatch") || svg.classList.contains("swatch")) continue;
    if (svg.getBoundingClientRect().width < 40) continue;
    const texts = [...svg.querySelectorAll("text")].filter((t) => t.textContent.trim() && shown(t, svg));
    const boxes = texts.map((t) => ({ t, ...ink(t.getBoundingClientRect()) }));
    for (let a = 0; a < boxes.length; a += 1) {
      for (let b = a + 1; b < boxes.length; b += 1) {
        const p = boxes[a],
          q = boxes[b];
        if (Math.min(p.r, q.r) - Math.max(p.l, q.l) > 1 && Math.min(p.b, q.b) - Math.max(p.top, q.top) > 1) {
          hits.push(`${name(p.t)} on ${name(q.t)}`);
        }
      }
    }
    const marks = [...svg.querySelectorAll("line, polyline, polygon, path, circle, ellipse, rect")].filter(
      (m) => !m.closest("text, defs, marker, clipPath, mask") && !m.matches(".wash, .wash *, .hit, .hit *, .gridline, .guide"),
    );
    for (const m of marks) {
      // only the labels near the mark's box are tested, and only a mark near a label is
      // styled and sampled (most of a picture's marks are nowhere near a label)
      const r = m.getBoundingClientRect();
      const near = boxes.filter((q) => r.left - NEAR < q.r && r.right + NEAR > q.l && r.top - NEAR < q.b && r.bottom + NEAR > q.top);
      if (near.length === 0 || !shown(m, svg)) continue;
      const s = getComputedStyle(m);
      const ctm = m.getScreenCTM();
      if (!ctm) continue;
      const scale = Math.hypot(ctm.a, ctm.b);
      const seen = opacity(m, svg);
      const stroked = s.stroke !== "none" && parseFloat(s.strokeWidth) > 0 && Number(s.strokeOpacity) * seen > 0.05;
      const filled = s.fill !== "none" && !/rgba\(.*, 0\)$/.test(s.fill) && Number(s.fillOpacity) * seen >= 0.3;
      // a non-scaling stroke (kit.css) is as wide on the screen as its style says
      const half = (parseFloat(s.strokeWidth) * (s.vectorEffect === "non-scaling-stroke" ? 1 : scale)) / 2;
      const pts = stroked ? along(m, ctm, scale) : [];
      const mark = `${m.tagName}.${[...m.classList].join(".") || (m.parentElement?.getAttribute("class") || "").split(" ").join(".")}`;
      for (const q of near) {
        if (m.tagName === "rect" && !m.matches(".bar, .square")) {
          // a label's own plate (a chip, a cell it is written in) is not a mark under it
          if (r.left <= q.l && r.right >= q.r && r.top <= q.top && r.bottom >= q.b) continue;
        }
        let hit = pts.some((p) => p.x > q.l - half && p.x < q.r + half && p.y > q.top - half && p.y < q.b + half);
        if (!hit && filled && m.isPointInFill) {
          const inv = ctm.inverse();
          for (let i = 1; i < 6 && !hit; i += 1) {
            for (let j = 1; j < 4 && !hit; j += 1) {
              const p = new DOMPoint(q.l + ((q.r - q.l) * i) / 6, q.top + ((q.b - q.top) * j) / 4).matrixTransform(inv);
              hit = m.isPointInFill(p);
            }
          }
        }
        if (hit) hits.push(`${name(q.t)} on ${mark}`);
      }
    }
  }
  // the focused control's ring against the figure's HTML text (a slider's tick numbers)
  const focused = document.activeElement;
  if (focused && fig.contains(focused) && !(focused instanceof SVGElement) && focused.matches(":focus-visible")) {
    const s = getComputedStyle(focused);
    if (s.outlineStyle !== "none") {
      const width = s.outlineStyle === "auto" ? 2 : parseFloat(s.outlineWidth);
      const out = parseFloat(s.outlineOffset) + width;
      const r = focused.getBoundingClientRect();
      const ring = { l: r.left - out, r: r.right + out, top: r.top - out, b: r.bottom + out };
      const walker = document.createTreeWalker(fig.querySelector(".stage"), NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const owner = node.parentElement;
        if (!node.textContent.trim() || !owner || owner.closest("svg") || focused.contains(owner)) continue;
        if (!shown(owner, fig)) continue;
        const range = document.createRange();
        range.selectNodeContents(node);
        for (const box of range.getClientRects()) {
          const q = ink(box);
          // the ring is four bands `width` wide round the control: text inside it is not struck
          const bands = [
            { ...ring, b: ring.top + width },
            { ...ring, top: ring.b - width },
            { ...ring, r: ring.l + width },
            { ...ring, l: ring.r - width },
          ];
          const struck = bands.some((p) => Math.min(p.r, q.r) > Math.max(p.l, q.l) && Math.min(p.b, q.b) > Math.max(p.top, q.top));
          if (struck) hits.push(`"${node.textContent.trim()}" under the focus ring of ${focused.tagName.toLowerCase()}`);
        }
      }
    }
  }
  return hits;
}
