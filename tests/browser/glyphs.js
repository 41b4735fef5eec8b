// What the glyph and colour hygiene test measures in the page (a JS function of nothing):
// every SVG label whose colour, after the opacity of it and its groups and over what it sits
// on (the picture's paper, or the focus wash), reads below 4.5:1; and every dashed outline in
// a neutral grey or ink (the masked glyph) on something that is not masked.
() => {
  const rgba = (text) => {
    const m = /rgba?\(([^)]+)\)/.exec(text ?? "");
    if (!m) return null;
    const p = m[1].split(/[\s,/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const over = (top, alpha, under) => under.map((c, i) => top[i] * alpha + c * (1 - alpha));
  const channel = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
  const lum = ([r, g, b]) => 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  const ratio = (a, b) => {
    const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
  };
  /** the opacity an element is painted with: its own and every group's up to its svg */
  const opacity = (el) => {
    let o = 1;
    for (let e = el; e && e.tagName !== "svg"; e = e.parentElement) o *= Number(getComputedStyle(e).opacity);
    return o;
  };
  const shown = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden";
  const inside = (r, x, y) => r.left <= x && x <= r.right && r.top <= y && y <= r.bottom;
  const dim = [];
  for (const text of document.querySelectorAll("figure svg text")) {
    if (!shown(text) || !(text.textContent ?? "").trim()) continue;
    const svg = /** @type {SVGSVGElement} */ (text.ownerSVGElement);
    const paper = rgba(getComputedStyle(svg).backgroundColor);
    const fill = rgba(getComputedStyle(text).fill);
    if (!paper || !fill || paper[3] === 0) continue;
    const box = text.getBoundingClientRect();
    const [x, y] = [box.left + box.width / 2, box.top + box.height / 2];
    let ground = paper.slice(0, 3);
    for (const wash of svg.querySelectorAll(".wash")) {
      if (!shown(wash) || !inside(wash.getBoundingClientRect(), x, y)) continue;
      const w = rgba(getComputedStyle(wash).fill);
      if (w) ground = over(w, w[3] * Number(getComputedStyle(wash).fillOpacity) * opacity(wash), ground);
    }
    const ink = over(fill, fill[3] * Number(getComputedStyle(text).fillOpacity) * opacity(text), ground);
    const r = ratio(ink, ground);
    if (r < 4.5) {
      const figure = text.closest("figure")?.id;
      dim.push(`${figure} "${text.textContent.trim().slice(0, 16)}" ${r.toFixed(2)}:1`);
    }
  }
  // the masked glyph: a dashed outline (a box, a ring) in a neutral colour, grey or ink
  const neutral = (c) => Math.max(c[0], c[1], c[2]) - Math.min(c[0], c[1], c[2]) < 24;
  const dashedGrey = [];
  for (const shape of document.querySelectorAll("figure svg :is(rect, circle, ellipse, polygon)")) {
    if (!shown(shape)) continue;
    const style = getComputedStyle(shape);
    const stroke = rgba(style.stroke);
    if (!stroke || style.strokeDasharray === "none" || Number(style.strokeWidth) === 0) continue;
    if (!neutral(stroke) || opacity(shape) === 0) continue;
    if (shape.closest(".masked, .masked-box") || shape.classList.contains("masked-box")) continue;
    const figure = shape.closest("figure")?.id;
    dashedGrey.push(`${figure} ${shape.tagName}.${[...shape.classList].join(".")}`);
  }
  return { dim, dashedGrey: [...new Set(dashedGrey)] };
}
