// What a reader's eye meets in one figure, measured in the page (bench/figures_audit.py):
// the picture's width over the figure's, labels rendered under 11 and 12 px, read-outs and
// those that repeat a label of the picture. Labels drawn on a mark are counted by the
// collision test's own measure (tests/browser/text_on_marks.js), which figures_audit.py adds.
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
    small11: [], small12: [], readouts: [], repeats: [] };
  const svgTexts = [];
  for (const svg of fig.querySelectorAll(".stage svg")) {
    if (!shown(svg, fig) || svg.closest(".swatch") || svg.classList.contains("swatch")) continue;
    const box = svg.getBoundingClientRect();
    if (box.width < 40) continue;
    out.width = Math.max(out.width, box.width);
    const texts = [...svg.querySelectorAll("text")].filter((t) => t.textContent.trim() && shown(t, svg));
    for (const t of texts) {
      const scale = (t.getScreenCTM() || { a: 1 }).a;
      const px = parseFloat(getComputedStyle(t).fontSize) * scale;
      const label = `${t.textContent.trim()} (${px.toFixed(1)}px)`;
      if (px < 11 - 0.05) out.small11.push(label);
      if (px < 12 - 0.05) out.small12.push(label);
      svgTexts.push(norm(t.textContent));
    }
  }
  for (const r of fig.querySelectorAll("[data-readout]")) {
    if (r.closest("svg") || !shown(r, fig)) continue;
    const text = norm(r.textContent);
    out.readouts.push(r.dataset.readout);
    if (text && svgTexts.includes(text)) out.repeats.push(`${r.dataset.readout}=${r.textContent}`);
  }
  return out;
}
