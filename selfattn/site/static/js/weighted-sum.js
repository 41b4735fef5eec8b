// The weighted sum on the plane: the six value vectors with labels that keep out of each
// other's way, the steps w_j·v_j laid tip to tail, and the polygon the output can never leave.

import { arrow, svg } from "./kit/plane.js";

/**
 * Value arrows from the origin, labelled with their tokens. Labels that would overlap are
 * pushed below one another, the shorter vector's label giving way.
 * @param {ReturnType<import("./kit/plane.js").makePlane>} plane
 * @param {string[]} tokens @param {number[][]} V
 */
export function valueArrows(plane, tokens, V, { cls = "value" } = {}) {
  const items = tokens.map((token, j) => {
    const a = arrow(plane, { cls, label: token });
    const text = plane.layers.labels.lastElementChild;
    a.set(V[j]);
    return { text, length: Math.hypot(...V[j]), token };
  });
  const placed = [];
  for (const item of [...items].sort((a, b) => b.length - a.length)) {
    const x = Number(item.text.getAttribute("x"));
    let y = Number(item.text.getAttribute("y"));
    const w = 7.5 * item.token.length + 4;
    const anchor = item.text.getAttribute("text-anchor");
    const left = anchor === "start" ? x : anchor === "end" ? x - w : x - w / 2;
    const overlaps = (b) => left < b.left + b.w && b.left < left + w && Math.abs(y - b.y) < 15;
    for (let tries = 0; tries < 4 && placed.some(overlaps); tries += 1) y += 15;
    item.text.setAttribute("y", y);
    placed.push({ left, w, y });
  }
  return items;
}

/**
 * Up to `count` arrows laid tip to tail; `set` takes the steps as [from, to] pairs and
 * marks one of them (the newest, say) as current.
 * @param {ReturnType<import("./kit/plane.js").makePlane>} plane
 */
export function tipToTail(plane, count, { cls = "step" } = {}) {
  const arrows = Array.from({ length: count }, () => {
    const a = arrow(plane, { cls });
    return { a, g: plane.layers.shapes.lastElementChild };
  });
  return {
    /** @param {number[][][]} steps @param {number} [current] */
    set(steps, current = -1) {
      arrows.forEach(({ a, g }, k) => {
        a.set(k < steps.length ? steps[k][1] : null, k < steps.length ? steps[k][0] : [0, 0]);
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

/** Whether a point lies inside (or on) a counter-clockwise convex polygon. */
export function insideConvex(point, hull) {
  return hull.every((a, k) => {
    const b = hull[(k + 1) % hull.length];
    return (b[0] - a[0]) * (point[1] - a[1]) - (b[1] - a[1]) * (point[0] - a[0]) >= -1e-12;
  });
}

/**
 * A filled polygon on the plane's bottom layer. @param {ReturnType<import("./kit/plane.js").makePlane>} plane
 * @param {number[][]} corners
 */
export function polygon(plane, corners, cls = "hull") {
  return svg("polygon", {
    class: cls,
    points: corners.map(([x, y]) => `${plane.sx(x)},${plane.sy(y)}`).join(" "),
  }, plane.layers.under);
}

/**
 * A dot with a label: the output point. @param {ReturnType<import("./kit/plane.js").makePlane>} plane
 */
export function point(plane, { cls = "output-point", label = "", dx = 10, dy = 16 } = {}) {
  const dot = svg("circle", { r: 6, class: cls }, plane.layers.labels);
  const text = svg("text", { class: `label ${cls}` }, plane.layers.labels);
  text.textContent = label;
  return {
    set(p) {
      const hidden = p === null;
      dot.style.display = text.style.display = hidden ? "none" : "";
      if (hidden) return;
      dot.setAttribute("cx", plane.sx(p[0]));
      dot.setAttribute("cy", plane.sy(p[1]));
      text.setAttribute("x", plane.sx(p[0]) + dx);
      text.setAttribute("y", plane.sy(p[1]) + dy);
    },
  };
}
