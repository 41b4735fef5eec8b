// One row of an attention head as bars on a fixed scale: scores, exp values or weights,
// with an optional cyan staircase that stacks the weights from left to right. It
// exposes its scale (so a handle can ride a bar) and takes a formatter (so a weight of
// 10⁻⁹ is not printed as 0).

import { svg } from "./kit/plane.js";
import { fixed } from "./kit/format.js";

const WIDTH = 360, LEFT = 30, RIGHT = 8, TOP = 30, BOTTOM = 26;

/**
 * @param {{labels: string[], min: number, max: number, label: string, title?: string,
 *   ticks?: number[], format?: (v: number) => string, height?: number, edge?: boolean}} o
 *   `edge` draws the top of the scale as a line: where a staircase of weights must end.
 */
export function makeRowChart({ labels, min, max, label, title = "", ticks = [], format = (v) => fixed(v), height = 200, edge = false }) {
  const root = svg("svg", { viewBox: `0 0 ${WIDTH} ${height}`, class: "chart row-chart", role: "img", "aria-label": label });
  const slot = (WIDTH - LEFT - RIGHT) / labels.length;
  const y = (v) => TOP + ((max - Math.min(max, Math.max(min, v))) / (max - min)) * (height - TOP - BOTTOM);
  const x = (i) => LEFT + slot * (i + 0.5);
  /** The value at chart height `py`: y's inverse, for a handle dragged along a bar. */
  const valueAt = (py) => max - ((py - TOP) / (height - TOP - BOTTOM)) * (max - min);
  svg("text", { class: "chart-title", x: 4, y: 14 }, root).textContent = title;
  for (const tick of ticks) {
    svg("line", { x1: LEFT, x2: WIDTH - RIGHT, y1: y(tick), y2: y(tick), class: "gridline" }, root);
    svg("text", { x: LEFT - 5, y: y(tick) + 4, class: "tick end" }, root).textContent = fixed(tick, Number.isInteger(tick) ? 0 : 1);
  }
  if (edge) svg("line", { x1: LEFT, x2: WIDTH - RIGHT, y1: y(max), y2: y(max), class: "top-edge" }, root);
  const reference = svg("line", { x1: LEFT, x2: WIDTH - RIGHT, class: "reference", visibility: "hidden" }, root);
  // the reference line's key sits in the title row, where no bar's number can reach it
  const referenceKey = svg("g", { class: "reference-key", visibility: "hidden" }, root);
  const referenceText = svg("text", { x: WIDTH - RIGHT - 28, y: 14, class: "reference-label" }, referenceKey);
  svg("line", { x1: WIDTH - RIGHT - 22, x2: WIDTH - RIGHT, y1: 10, y2: 10, class: "reference" }, referenceKey);
  svg("line", { x1: LEFT, x2: WIDTH - RIGHT, y1: y(Math.max(min, 0)), y2: y(Math.max(min, 0)), class: "baseline" }, root);
  // under the bars and their numbers, so a tread never strikes through a label
  const stairs = svg("path", { class: "staircase", visibility: "hidden" }, root);
  const landing = svg("circle", { class: "landing", r: 4, visibility: "hidden" }, root);
  const bars = labels.map((name, i) => {
    const rect = svg("rect", { x: x(i) - slot * 0.3, width: slot * 0.6, class: "bar" }, root);
    const value = svg("text", { x: x(i), class: "bar-value" }, root);
    svg("text", { x: x(i), y: height - 8, class: "bar-label" }, root).textContent = name;
    return { rect, value };
  });

  return {
    root,
    x,
    y,
    valueAt,
    /**
     * @param {number[]} values
     * @param {{win?: number, staircase?: boolean, reference?: number|null, referenceLabel?: string, lift?: number}} [o]
     *   `lift` raises one bar's number clear of a handle sitting on that bar's end.
     */
    set(values, { win = -1, staircase = false, reference: at = null, referenceLabel = "", lift = -1 } = {}) {
      values.forEach((v, i) => {
        const { rect, value } = bars[i];
        const a = y(Math.max(0, v)), b = y(Math.min(0, v));
        rect.setAttribute("y", a);
        rect.setAttribute("height", Math.max(0.5, b - a));
        rect.setAttribute("class", `bar ${v >= 0 ? "pos" : "neg"}${i === win ? " win" : ""}`);
        const gap = i === lift ? 16 : 4;
        value.setAttribute("y", v >= 0 ? a - gap : b + 8 + gap);
        value.textContent = format(v);
      });
      stairs.setAttribute("visibility", staircase ? "visible" : "hidden");
      landing.setAttribute("visibility", staircase ? "visible" : "hidden");
      if (staircase) {
        // each riser is one weight tall; the last tread ends on the chart's top edge
        stairs.setAttribute("d", stepPath(values, x, y, slot));
        landing.setAttribute("cx", WIDTH - RIGHT);
        landing.setAttribute("cy", y(values.reduce((a, b) => a + b, 0)));
      }
      for (const el of [reference, referenceKey]) el.setAttribute("visibility", at === null ? "hidden" : "visible");
      if (at !== null) {
        reference.setAttribute("y1", y(at));
        reference.setAttribute("y2", y(at));
        referenceText.textContent = referenceLabel;
      }
    },
  };
}

/** The staircase: up by each weight at the left edge of its slot, flat across it. */
function stepPath(values, x, y, slot) {
  let total = 0;
  let d = `M ${x(0) - slot / 2} ${y(0)}`;
  values.forEach((v, i) => {
    total += v;
    d += ` V ${y(total)} H ${x(i) + slot / 2}`;
  });
  return d;
}
