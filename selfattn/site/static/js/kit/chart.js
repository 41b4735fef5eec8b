// Scales and the frame of a chart: an SVG with margins sized for its labels, layers in
// drawing order, and axes whose tick labels stay inside the picture.

import { svg } from "./dom.js";
import { fixed } from "./format.js";
import { setSvg } from "./notation.js";

// a tick number's offset from its axis in em, so it keeps clear of the axis at whatever size
// the stage renders its type (kit/stage.js's --px), as a fixed offset in user units did not
export const TICK_BELOW = "1.4em";
export const TICK_BESIDE = "-0.5em";
export const TICK_MIDDLE = "0.35em";

/** The `--px` the stage keeps on a picture (kit/stage.js): type in user units is size × it. */
export function typeScale(/** @type {SVGElement} */ picture) {
  return Number(picture.style.getPropertyValue("--px")) || 1;
}

/**
 * A text's offset attribute (dx, dy) in user units, read in em where it is written in em.
 * @param {Element} text @param {string} name @param {number} em the text's size in user units
 */
export function offsetOf(text, name, em) {
  const value = text.getAttribute(name) ?? "0";
  return value.endsWith("em") ? Number.parseFloat(value) * em : Number(value);
}

/**
 * @typedef {((v: number) => number) & {invert(p: number): number, domain: number[], range: number[]}} Scale
 */

/**
 * A linear map from `domain` to `range` (pixels), with its inverse.
 * @param {number[]} domain @param {number[]} range @returns {Scale}
 */
export function linear([d0, d1], [r0, r1]) {
  const f = /** @type {Scale} */ ((v) => r0 + ((v - d0) * (r1 - r0)) / (d1 - d0));
  f.invert = (p) => d0 + ((p - r0) * (d1 - d0)) / (r1 - r0);
  f.domain = [d0, d1];
  f.range = [r0, r1];
  return f;
}

/**
 * A logarithmic map (any base: the ratio is what matters) from `domain` to `range`.
 * @param {number[]} domain @param {number[]} range @returns {Scale}
 */
export function log([d0, d1], [r0, r1]) {
  const inner = linear([Math.log(d0), Math.log(d1)], [r0, r1]);
  const f = /** @type {Scale} */ ((v) => inner(Math.log(v)));
  f.invert = (p) => Math.exp(inner.invert(p));
  f.domain = [d0, d1];
  f.range = [r0, r1];
  return f;
}

/**
 * Round tick values (steps of 1, 2 or 5 times a power of ten) covering [lo, hi].
 * @param {number} lo @param {number} hi @param {number} [count] about how many
 */
export function ticks(lo, hi, count = 4) {
  const raw = (hi - lo) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power;
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Number(v.toFixed(10)));
  return out;
}

/**
 * The `d` of a path through data points, placed by the chart's scales.
 * @param {(u: number) => number} x @param {(v: number) => number} y @param {number[][]} points [[u, v], …] in data units
 */
export function through(x, y, points) {
  return points.map(([u, v], i) => `${i ? "L" : "M"} ${x(u).toFixed(2)} ${y(v).toFixed(2)}`).join(" ");
}

/**
 * An SVG chart: `width` × `height` in its own units, an inner box inside `margin`, and
 * layers (grid, marks, labels, handles) so labels always paint over marks.
 * @param {HTMLElement} parent
 * @param {{width?: number, height: number, margin?: {top?: number, right?: number, bottom?: number, left?: number},
 *   label: string, cls?: string, title?: string}} o `title` heads the chart, above its box
 */
export function chart(parent, { width = 360, height, margin = {}, label, cls = "", title: heading = "" }) {
  const { top = 12, right = 12, bottom = 28, left = 36 } = margin;
  const root = svg("svg", {
    viewBox: `0 0 ${width} ${height}`,
    class: `chart ${cls}`.trim(),
    role: "img",
    "aria-label": label,
  });
  const layers = Object.fromEntries(
    ["grid", "marks", "labels", "handles"].map((name) => [name, svg("g", { class: name }, root)]),
  );
  parent.append(root);
  const frame = { root, layers, width, height, box: { left, right: width - right, top, bottom: height - bottom } };
  if (heading) title(frame, heading);
  return frame;
}

/**
 * A line of title over a chart, at height `y` from its top; a chart of stacked number lines
 * heads each with one.
 * @param {{layers: Record<string, SVGGElement>}} frame @param {string} text @param {number} [y]
 */
export function title(frame, text, y = 14) {
  const el = svg("text", { x: 4, y, class: "chart-title" }, frame.layers.grid);
  setSvg(el, text);
  return el;
}

/**
 * Gridlines and tick labels for one axis; tick labels sit in the margin, never on a mark.
 * @param {ReturnType<typeof chart>} frame @param {Scale} scale
 * @param {{side: "left"|"bottom", values: number[], format?: (v: number) => string, title?: string, grid?: boolean}} o
 */
export function axis(
  frame,
  scale,
  { side, values, format = (v) => fixed(v, Number.isInteger(v) ? 0 : 1), title = "", grid = true },
) {
  const { box, layers } = frame;
  for (const v of values) {
    const p = scale(v);
    if (side === "left") {
      if (grid) svg("line", { x1: box.left, x2: box.right, y1: p, y2: p, class: "gridline" }, layers.grid);
      setSvg(
        svg("text", { x: box.left, y: p, dx: TICK_BESIDE, dy: TICK_MIDDLE, class: "tick end" }, layers.grid),
        format(v),
      );
    } else {
      if (grid) svg("line", { x1: p, x2: p, y1: box.top, y2: box.bottom, class: "gridline" }, layers.grid);
      setSvg(svg("text", { x: p, y: box.bottom, dy: TICK_BELOW, class: "tick" }, layers.grid), format(v));
    }
  }
  if (title) {
    const at =
      side === "left"
        ? { x: box.left, y: box.top - 6, class: "axis-title start" }
        : // under the tick numbers, an em and a half below them in its own em: a picture
          // enlarged past its design size would leave a title at its bottom edge far from them
          { x: (box.left + box.right) / 2, y: box.bottom, dy: "2.5em", class: "axis-title" };
    setSvg(svg("text", at, layers.grid), title);
  }
}
