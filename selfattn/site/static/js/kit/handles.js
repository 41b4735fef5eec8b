// Handles the reader drags: a 2-D point on a plane (`handle`) or one number inside a
// chart (`valueHandle`). A pointer drags them (captured, so a finger does not scroll the
// page); arrow keys step them (Shift: ten steps); a number also takes Page Up/Down and
// Home/End. They only report: `onMove` writes state, and draw calls `place`.

import { svg } from "./dom.js";

/**
 * Drag with a pointer on `target`: captured, so the drag follows the pointer anywhere,
 * and with the touch start cancelled, because Chromium ignores touch-action on SVG
 * shapes and a finger would scroll the page instead. `knob` is the handle that shows
 * the drag and takes focus; `jump` moves it to where the press lands (a press on a
 * whole bar, say), not only where the pointer goes next.
 * @param {Element} target @param {SVGElement} knob
 * @param {(event: PointerEvent) => void} onPoint @param {{jump?: boolean}} [o]
 */
export function dragWith(target, knob, onPoint, { jump = false } = {}) {
  target.addEventListener("touchstart", (event) => event.preventDefault(), { passive: false });
  target.addEventListener("pointerdown", (/** @type {PointerEvent} */ event) => {
    event.preventDefault();
    target.setPointerCapture(event.pointerId);
    knob.classList.add("dragging");
    knob.focus({ preventScroll: true });
    if (jump) onPoint(event);
  });
  target.addEventListener("pointermove", (/** @type {PointerEvent} */ event) => {
    if (target.hasPointerCapture(event.pointerId)) onPoint(event);
  });
  const release = (/** @type {PointerEvent} */ event) => {
    if (target.hasPointerCapture(event.pointerId)) target.releasePointerCapture(event.pointerId);
    knob.classList.remove("dragging");
  };
  target.addEventListener("pointerup", release);
  target.addEventListener("pointercancel", release);
}

/**
 * A 2-D drag handle: a pointer drags it (captured, so a finger does not scroll the
 * page); arrow keys move it by `step`, Shift by ten steps; Home and End, where the figure
 * gives them, jump to its start and to the point its idea turns on (F05's query past 90°).
 * It only reports where the reader wants it: `onMove` writes state, and `place` is called by draw.
 * @param {ReturnType<typeof import("./plane.js").makePlane>} plane
 * @param {{label: string, step?: number, onMove: (p: number[]) => void, get: () => number[], cls?: string,
 *   home?: number[], end?: number[]}} o
 */
export function handle(plane, { label, step = 0.05, onMove, get, cls = "", home, end }) {
  const g = svg(
    "g",
    { class: `handle ${cls}`, tabindex: 0, role: "slider", "aria-label": label },
    plane.layers.handles,
  );
  plane.root.setAttribute("role", "group"); // a picture with a control inside is no longer just an image
  svg("circle", { r: 36, class: "hit" }, g); // 44 px or more even when a phone scales a wide plane down
  svg("circle", { r: 8, class: "knob" }, g);
  dragWith(g, g, (event) => onMove(plane.clampToPlane(plane.toPlane(event))));
  g.addEventListener("keydown", (event) => {
    const moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] };
    const move = moves[event.key];
    const jump = { Home: home, End: end }[event.key];
    if (jump) {
      event.preventDefault();
      onMove(plane.clampToPlane(jump));
    }
    if (!move) return;
    event.preventDefault();
    const k = (event.shiftKey ? 10 : 1) * step;
    const [x, y] = get();
    // Step from where the handle is, not to a grid: twenty presses of Up from the input of it
    // embedding land exactly one unit above it, as the prose says. Rounding away float
    // dust keeps positions repeatable; the other coordinate is left exactly as it was.
    const exact = (v) => Number(v.toFixed(10));
    onMove(plane.clampToPlane([move[0] ? exact(x + move[0] * k) : x, move[1] ? exact(y + move[1] * k) : y]));
  });
  return {
    /** @param {number[]} p @param {string} valuetext */
    place(p, valuetext) {
      g.setAttribute("transform", `translate(${plane.sx(p[0])} ${plane.sy(p[1])})`);
      g.setAttribute("aria-valuenow", p[0].toFixed(2));
      g.setAttribute("aria-valuetext", valuetext);
    },
    el: g,
  };
}

/**
 * @param {SVGSVGElement} root the chart the handle lives in
 * @param {{label: string, min: number, max: number, step: number, page?: number,
 *   toPoint: (v: number) => number[], fromPoint: (p: number[]) => number,
 *   onMove: (v: number) => void, get: () => number, orientation?: "vertical"|"horizontal",
 *   hit?: SVGElement, cls?: string, reach?: number}} o
 *   `toPoint` maps a value to the chart's coordinates, `fromPoint` a chart point back;
 *   `hit` is an extra element (a whole bar, say) where a press also grabs the handle.
 */
export function valueHandle(
  root,
  {
    label,
    min,
    max,
    step,
    page = 10 * step,
    toPoint,
    fromPoint,
    onMove,
    get,
    orientation = "vertical",
    hit,
    cls = "",
    reach = 24,
  },
) {
  const g = svg(
    "g",
    {
      class: `handle ${cls}`,
      tabindex: 0,
      role: "slider",
      "aria-label": label,
      "aria-valuemin": min,
      "aria-valuemax": max,
      "aria-orientation": orientation,
    },
    root,
  );
  root.setAttribute("role", "group"); // a picture with a control inside is no longer just an image
  // 48 px across: a fingertip, with room for a scaled-down chart; a chart drawn smaller on a
  // phone than its viewBox asks for more (`reach`)
  svg("circle", { r: reach, class: "hit" }, g);
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
    const by = { ArrowUp: step, ArrowRight: step, ArrowDown: -step, ArrowLeft: -step, PageUp: page, PageDown: -page }[
      event.key
    ];
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
