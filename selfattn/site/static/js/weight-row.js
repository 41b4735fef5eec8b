// One row of attention weights as bars, one per key, that can reorder (each bar slides
// to its new slot), show a ghost of another row behind it, mark masked keys dashed and
// weight that leaks onto a masked key hatched.

import { svg } from "./kit/plane.js";

let patterns = 0;

/**
 * @param {{tokens: string[], label: string, name: string, max?: number, height?: number}} o
 * Each bar's value text carries data-readout="NAME.token"; a second line under each
 * token (`sub`) can say what went into softmax.
 */
export function makeWeightRow({ tokens, label, name, max = 1, height = 210 }) {
  const width = 360, top = 20, bottom = 46, slot = width / tokens.length;
  const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "chart weight-row", role: "img", "aria-label": label });
  const hatch = `leak-hatch-${(patterns += 1)}`;
  const pattern = svg("pattern", { id: hatch, width: 6, height: 6, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" }, svg("defs", {}, root));
  svg("rect", { width: 6, height: 6, class: "hatch-ground" }, pattern);
  svg("line", { x1: 0, y1: 0, x2: 0, y2: 6, class: "hatch-line" }, pattern);
  const base = height - bottom;
  const y = (w) => base - (Math.min(max, Math.max(0, w)) / max) * (base - top);
  svg("line", { x1: 0, x2: width, y1: base, y2: base, class: "baseline" }, root);
  const bars = Object.fromEntries(tokens.map((token) => {
    const g = svg("g", { class: "slot" }, root);
    const cx = slot / 2;
    const box = svg("rect", { x: 3, y: top, width: slot - 6, height: base - top, rx: 4, class: "masked-box" }, g);
    const ghost = svg("rect", { x: cx - slot * 0.3, width: slot * 0.6, class: "ghost" }, g);
    const bar = svg("rect", { x: cx - slot * 0.3, width: slot * 0.6, class: "bar" }, g);
    const value = svg("text", { x: cx, class: "bar-value", "data-readout": `${name}.${token}` }, g);
    svg("text", { x: cx, y: base + 17, class: "bar-label" }, g).textContent = token;
    const sub = svg("text", { x: cx, y: base + 35, class: "bar-sub" }, g);
    return [token, { g, box, ghost, bar, value, sub }];
  }));
  return {
    root,
    /**
     * @param {{weights: Record<string, number>, text: Record<string, string>, order?: string[],
     *   masked?: Record<string, boolean>, ghost?: Record<string, number>|null,
     *   sub?: Record<string, string>|null, win?: string}} o
     */
    set({ weights, text, order = tokens, masked = {}, ghost = null, sub = null, win = "" }) {
      order.forEach((token, k) => {
        const b = bars[token], w = weights[token], off = Boolean(masked[token]);
        // CSS transform, not the attribute, so the move can be eased by the stylesheet
        b.g.style.transform = `translate(${k * slot}px, 0px)`;
        b.box.style.display = off ? "" : "none";
        b.bar.setAttribute("y", y(w));
        b.bar.setAttribute("height", Math.max(0, base - y(w)));
        b.bar.setAttribute("class", `bar${off ? " leak" : ""}${token === win ? " win" : ""}`);
        b.bar.setAttribute("fill", off ? `url(#${hatch})` : "");
        if (!off) b.bar.removeAttribute("fill");
        const g = ghost ? ghost[token] : null;
        b.ghost.style.display = g === null ? "none" : "";
        if (g !== null) {
          b.ghost.setAttribute("y", y(g));
          b.ghost.setAttribute("height", Math.max(0, base - y(g)));
        }
        b.value.setAttribute("y", Math.min(y(w), g === null ? base : y(g)) - 5);
        if (b.value.textContent !== text[token]) b.value.textContent = text[token];
        b.sub.textContent = sub ? sub[token] : "";
      });
    },
  };
}
