// The weighted sum on the plane: the six value vectors (green), the terms w_j·v_j laid tip
// to tail (green, the value terms), the output and its path (purple), and the polygon the
// output can never leave. Labels are untangled by the plane (kit/plane.js) at each draw.

import { svg } from "./kit/dom.js";
import { setSvg } from "./kit/notation.js";
import { arrow, named } from "./kit/plane.js";

/**
 * Value arrows from the origin, labelled with their tokens, faint: the ground the sum walks on.
 * @param {ReturnType<import("./kit/plane.js").makePlane>} plane
 * @param {string[]} tokens @param {number[][]} V
 */
export function valueArrows(plane, tokens, V, { cls = "value faint" } = {}) {
  return tokens.map((token, j) => {
    const a = arrow(plane, { cls, label: token });
    a.set(V[j]);
    return a;
  });
}

/**
 * `count` value terms laid tip to tail; `set` takes the steps as [from, to] pairs and marks
 * one of them (the newest, say) as current. A term not yet added waits, folded to nothing,
 * at the tip of the path, so adding it grows it out of that tip.
 * @param {ReturnType<import("./kit/plane.js").makePlane>} plane
 */
export function tipToTail(plane, count) {
  const arrows = Array.from({ length: count }, () => arrow(plane, { cls: "value term" }));
  return {
    /** @param {number[][][]} steps @param {number} [shown] how many are added @param {number} [current] */
    set(steps, shown = steps.length, current = -1) {
      const tip = shown ? steps[shown - 1][1] : [0, 0];
      arrows.forEach((a, k) => {
        const { g } = a;
        if (k < shown) a.set(steps[k][1], steps[k][0]);
        else a.set(tip, tip);
        g.classList.toggle("waiting", k >= shown);
        g.classList.toggle("current", k === current);
      });
    },
  };
}

/**
 * The running sums of terms taken in `order`: [[from, to], ...], summed in that order,
 * so a different order really adds the numbers differently.
 * @param {number[]} w weights @param {number[][]} V values @param {number[]} order
 */
export function stepsInOrder(w, V, order) {
  let at = [0, 0];
  return order.map((j) => {
    const to = [at[0] + w[j] * V[j][0], at[1] + w[j] * V[j][1]];
    const step = [at, to];
    at = to;
    return step;
  });
}

/** Convex hull of 2-D points, counter-clockwise (Andrew's monotone chain). @param {number[][]} points */
export function convexHull(points) {
  const p = [...points].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const cross = (o, a, b) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const half = (list) => {
    const out = [];
    for (const q of list) {
      while (out.length >= 2 && cross(out[out.length - 2], out[out.length - 1], q) <= 0) out.pop();
      out.push(q);
    }
    out.pop();
    return out;
  };
  return [...half(p), ...half([...p].reverse())];
}

/**
 * A filled polygon on the plane's bottom layer. @param {ReturnType<import("./kit/plane.js").makePlane>} plane
 * @param {number[][]} corners
 */
export function polygon(plane, corners, cls = "hull") {
  const shape = svg("polygon", { class: cls }, plane.layers.under);
  reshape(plane, shape, corners);
  return shape;
}

/**
 * Move a polygon's corners. @param {ReturnType<import("./kit/plane.js").makePlane>} plane
 * @param {SVGElement} shape @param {number[][]} corners
 */
export function reshape(plane, shape, corners) {
  shape.setAttribute("points", corners.map(([x, y]) => `${plane.sx(x)},${plane.sy(y)}`).join(" "));
}

/**
 * A dot with a label, the output in purple by default; the label sits beside the dot in
 * the plane's label layer, so untangle keeps it off the value labels.
 * @param {ReturnType<import("./kit/plane.js").makePlane>} plane
 */
export function point(plane, { cls = "output", label = "", dx = 12, dy = -8 } = {}) {
  const dot = svg("circle", { r: 6, class: `point ${cls}` }, plane.layers.handles);
  const text = svg("text", { class: `label ${cls}` }, plane.layers.labels);
  setSvg(text, label);
  return {
    /** @param {number[]|null} p */
    set(p) {
      const hidden = p === null;
      dot.style.display = text.style.display = hidden ? "none" : "";
      if (hidden) return;
      dot.setAttribute("cx", String(plane.sx(p[0])));
      dot.setAttribute("cy", String(plane.sy(p[1])));
      named(text, [plane.sx(p[0]), plane.sy(p[1])]);
      text.setAttribute("x", String(plane.sx(p[0]) + dx));
      text.setAttribute("y", String(plane.sy(p[1]) + dy));
    },
  };
}
