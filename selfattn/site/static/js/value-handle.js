// A drag handle for one number inside an SVG chart: a pointer drags it (captured, so a
// finger does not scroll the page), arrow keys step it (Shift: ten steps), Page Up/Down
// jump, Home/End go to the ends. Like plane.js's handle it only reports: `onMove`
// writes state, draw calls `place`.

import { svg, dragWith } from "./plane.js";

/**
 * @param {SVGSVGElement} root the chart the handle lives in
 * @param {{label: string, min: number, max: number, step: number, page: number,
 *   toPoint: (v: number) => number[], fromPoint: (p: number[]) => number,
 *   onMove: (v: number) => void, get: () => number, orientation?: "vertical"|"horizontal",
 *   hit?: SVGElement, cls?: string}} o
 *   `toPoint` maps a value to the chart's coordinates, `fromPoint` a chart point back;
 *   `hit` is an extra element (a whole bar, say) where a press also grabs the handle.
 */
export function valueHandle(root, { label, min, max, step, page = 10 * step, toPoint, fromPoint, onMove, get, orientation = "vertical", hit, cls = "" }) {
  const g = svg("g", {
    class: `handle ${cls}`, tabindex: 0, role: "slider", "aria-label": label,
    "aria-valuemin": min, "aria-valuemax": max, "aria-orientation": orientation,
  }, root);
  root.setAttribute("role", "group"); // a picture with a control inside is no longer just an image
  svg("circle", { r: 24, class: "hit" }, g); // 48 px across: a fingertip, with room for a scaled-down chart
  svg("circle", { r: 8, class: "knob" }, g);
  const keep = (v) => Math.min(max, Math.max(min, v));
  const pointed = (event) => {
    const p = new DOMPoint(event.clientX, event.clientY).matrixTransform(root.getScreenCTM().inverse());
    return keep(fromPoint([p.x, p.y]));
  };
  for (const target of hit ? [g, hit] : [g]) {
    dragWith(target, g, (event) => onMove(pointed(event)), { jump: target !== g });
  }
  g.addEventListener("keydown", (event) => {
    const by = { ArrowUp: step, ArrowRight: step, ArrowDown: -step, ArrowLeft: -step, PageUp: page, PageDown: -page }[event.key];
    const to = { Home: min, End: max }[event.key];
    if (by === undefined && to === undefined) return;
    event.preventDefault();
    // snap to the step grid so keyboard positions are exact and repeatable
    const next = to ?? Math.round((get() + (event.shiftKey ? 10 : 1) * by) / step) * step;
    onMove(keep(Number(next.toFixed(10))));
  });
  return {
    el: g,
    /** @param {number} v @param {string} valuetext */
    place(v, valuetext) {
      const [x, y] = toPoint(v);
      g.setAttribute("transform", `translate(${x} ${y})`);
      g.setAttribute("aria-valuenow", String(Number(v.toFixed(4))));
      g.setAttribute("aria-valuetext", valuetext);
    },
  };
}
