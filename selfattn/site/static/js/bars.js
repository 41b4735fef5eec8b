// A row of labelled bars around a zero line: raw scores, weights, exp values.

import { svg } from "./plane.js";
import { fixed } from "./numbers.js";

/**
 * @param {{labels: string[], min: number, max: number, label: string, decimals?: number}} o
 * @returns {{root: SVGSVGElement, set(values: number[], opts?: {win?: number, threshold?: number}): void}}
 */
export function makeBars({ labels, min, max, label, decimals = 2, height = 200 }) {
  const width = 360, top = 18, bottom = 26, slot = width / labels.length;
  const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "chart", role: "img", "aria-label": label });
  const y = (v) => top + ((max - Math.min(max, Math.max(min, v))) / (max - min)) * (height - top - bottom);
  svg("line", { x1: 0, x2: width, y1: y(0), y2: y(0), class: "baseline" }, root);
  const threshold = svg("line", { x1: 0, x2: width, class: "threshold", visibility: "hidden" }, root);
  const bars = labels.map((name, i) => {
    const cx = slot * (i + 0.5);
    const rect = svg("rect", { x: cx - slot * 0.3, width: slot * 0.6, class: "bar" }, root);
    const value = svg("text", { x: cx, class: "bar-value" }, root);
    svg("text", { x: cx, y: height - 8, class: "bar-label" }, root).textContent = name;
    return { rect, value };
  });
  return {
    root,
    set(values, { win = -1, threshold: at = null } = {}) {
      values.forEach((v, i) => {
        const { rect, value } = bars[i];
        const a = y(Math.max(0, v)), b = y(Math.min(0, v));
        rect.setAttribute("y", a);
        rect.setAttribute("height", Math.max(1, b - a));
        rect.setAttribute("class", `bar ${v >= 0 ? "pos" : "neg"}${i === win ? " win" : ""}`);
        value.setAttribute("y", v >= 0 ? a - 4 : b + 12);
        value.textContent = fixed(v, decimals);
      });
      threshold.setAttribute("visibility", at === null ? "hidden" : "visible");
      if (at !== null) {
        threshold.setAttribute("y1", y(at));
        threshold.setAttribute("y2", y(at));
      }
    },
  };
}

/** Index of the largest entry. */
export function argmax(values) {
  return values.reduce((best, v, i) => (v > values[best] ? i : best), 0);
}
