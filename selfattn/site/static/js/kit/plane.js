// An SVG plane for 2-D vectors: axes and grid, labelled arrows, a perpendicular drop,
// and drag handles that follow a pointer or the arrow keys.

import { offsetOf, TICK_BELOW, TICK_BESIDE, TICK_MIDDLE, typeScale } from "./chart.js";
import { put, svg } from "./dom.js";
import { tokenOf } from "./link.js";
import { setSvg } from "./notation.js";
import { free, marksIn, place } from "./place.js";

const TICK_GAP = 32; // px between tick numbers: "−100" at the tick size, and a gap
const LINES_MOST = 200; // grid lines across a window at most: a huge one draws every few grids

/**
 * A plane showing at least x in [x0, x1] and y in [y0, y1], `unit` user units per unit of
 * the data. On the page every plane is drawn at one world scale (kit/compose.js: one unit is
 * the same number of px in every figure); a plane whose data is too small to read at it
 * says `zoom` (2 draws every unit twice as large) and wears "× 2" in its corner. Its window is
 * its data's range; compose.js makes it taller (`fit`) only beside a taller chart.
 * @param {{x: [number, number], y: [number, number], unit?: number, label: string, grid?: number, zoom?: number}} o
 */
export function makePlane({ x: [x0, x1], y: [y0, y1], unit = 90, label, grid = 0.5, zoom = 1 }) {
  const root = svg("svg", { class: "plane", role: "img", "aria-label": label });
  const layers = Object.fromEntries(
    ["grid", "backdrop", "under", "shapes", "leaders", "labels", "handles"].map((name) => [
      name,
      svg("g", { class: name }, root),
    ]),
  );
  // the data's corner stays the origin of the user units, so a figure's sx/sy never change
  // when the window around it widens: the viewBox starts left of it and above it instead
  const sx = (x) => (x - x0) * unit;
  const sy = (y) => (y1 - y) * unit;
  const bounds = { x0, x1, y0, y1 };
  const badge =
    zoom !== 1 ? svg("text", { class: "zoom-badge", dx: "-0.5em", dy: "1.3em", "aria-hidden": "true" }) : null;
  if (badge) badge.textContent = `\u00d7 ${zoom}`;

  let edge = 0; // units kept clear of the window's edge by a tick number (set by fit)
  /** Draw the grid, axes and tick numbers for the window `bounds` now shows. */
  function drawGrid() {
    const { x0: a0, x1: a1, y0: b0, y1: b1 } = bounds;
    layers.grid.replaceChildren();
    const top = sy(b1),
      bottom = sy(b0),
      left = sx(a0),
      right = sx(a1);
    // a line every `grid` units, or every so many grids where the window is huge (a notebook's
    // q × 1e7 drew millions of lines and never loaded; past 1e16 the step stopped advancing)
    let step = grid;
    while (Math.max(a1 - a0, b1 - b0) / step > LINES_MOST) step *= 2;
    if (!Number.isFinite(step)) return;
    for (let gx = Math.ceil(a0 / step - 1e-9) * step; gx <= a1 + 1e-9; gx += step) {
      const axis = Math.abs(gx) < 1e-9;
      svg("line", { x1: sx(gx), x2: sx(gx), y1: top, y2: bottom, class: axis ? "axis" : "gridline" }, layers.grid);
    }
    for (let gy = Math.ceil(b0 / step - 1e-9) * step; gy <= b1 + 1e-9; gy += step) {
      const axis = Math.abs(gy) < 1e-9;
      svg("line", { x1: left, x2: right, y1: sy(gy), y2: sy(gy), class: axis ? "axis" : "gridline" }, layers.grid);
    }
    // numbers on grid lines, never finer than 1 (the article's half-step grids keep whole
    // ticks; a window under two units wide, halves) and never closer than a number is wide
    const least = Math.min(a1 - a0, b1 - b0) < 2 ? 0.5 : 1;
    let tick = grid;
    while (tick < least - 1e-9 || tick * unit < TICK_GAP) tick *= 2;
    const ticks = (lo, hi) => {
      const out = [];
      for (let k = Math.floor(lo / tick) + 1; k * tick < hi - 1e-9; k += 1)
        if (k && k * tick > lo + edge && k * tick < hi - edge) out.push(k * tick);
      return out;
    };
    const number = (t) => String(Number(t.toFixed(6))).replace("-", "\u2212");
    for (const t of ticks(a0, a1))
      svg("text", { x: sx(t), y: sy(0), dy: TICK_BELOW, class: "tick" }, layers.grid).textContent = number(t);
    for (const t of ticks(b0, b1))
      svg(
        "text",
        { x: sx(0), y: sy(t), dx: TICK_BESIDE, dy: TICK_MIDDLE, class: "tick end" },
        layers.grid,
      ).textContent = number(t);
    root.setAttribute("viewBox", `${left} ${top} ${right - left} ${bottom - top}`);
    if (badge) {
      // in the top right corner, in from the edge by its own size (kit.css sets it in em)
      badge.setAttribute("x", String(right));
      badge.setAttribute("y", String(top));
      layers.grid.append(badge);
    }
  }
  drawGrid();

  /** Screen point of a pointer event → plane coordinates. */
  function toPlane(event) {
    const p = new DOMPoint(event.clientX, event.clientY).matrixTransform(root.getScreenCTM().inverse());
    return [p.x / unit + x0, y1 - p.y / unit];
  }

  /** Keep a point on the visible plane. */
  /** @param {number[]} p @param {number} [margin] */
  function clampToPlane([x, y], margin = 0.05) {
    return [Math.min(x1 - margin, Math.max(x0 + margin, x)), Math.min(y1 - margin, Math.max(y0 + margin, y))];
  }

  const api = {
    root,
    layers,
    sx,
    sy,
    unit,
    zoom,
    toPlane,
    clampToPlane,
    /** the window shown, at least the data's range (`fit` widens it) */
    bounds,
    /** the data's range, in units: the least the plane shows */
    natural: { width: x1 - x0, height: y1 - y0 },
    /**
     * Show a window `width` × `height` units around the data (compose.js, when the plane
     * has that much room at the world scale): the extra goes first to the side that brings
     * the origin nearer the middle, so origins sit alike from figure to figure.
     * `px` is what one unit measures on the page, so a tick number keeps 16 px off the edge.
     * @param {number} width @param {number} height @param {number} [px]
     */
    fit(width, height, px = 0) {
      const before = edge;
      edge = px ? 16 / px : 0;
      const grow = (lo, hi, size) => {
        const extra = Math.max(0, size - (hi - lo));
        // the origin's offset from the middle of [lo, hi]; extra first evens it out
        const lean = Math.max(-extra, Math.min(extra, lo + hi));
        const below = (extra + lean) / 2;
        return [lo - below, hi + (extra - below)];
      };
      const [a0, a1] = grow(x0, x1, width),
        [b0, b1] = grow(y0, y1, height);
      const same = [a0 - bounds.x0, a1 - bounds.x1, b0 - bounds.y0, b1 - bounds.y1].every((d) => Math.abs(d) < 1e-6);
      if (same && Math.abs(edge - before) < 1e-9) return false;
      Object.assign(bounds, { x0: a0, x1: a1, y0: b0, y1: b1 });
      drawGrid();
      return true; // new grid and ticks: the figure draws again, to clear the ticks under marks
    },
  };
  // lets tests aim at plane points, and hold the window shown to the data's range
  root.dataset.frame = JSON.stringify({ x0, x1, y0, y1, unit, zoom });
  /** @type {any} */ (root).plane = api;
  return api;
}

/** 48 points on the circle of radius `reach` around the origin: the rim a dragged point keeps to. */
export function ring(reach) {
  return Array.from({ length: 48 }, (_, i) => [
    reach * Math.cos((i * Math.PI) / 24),
    reach * Math.sin((i * Math.PI) / 24),
  ]);
}

/**
 * A faint closed outline through `points` (how far a drag reaches), under every mark: a
 * guide, as a grid line is, which labels cross rather than keep off.
 * @param {ReturnType<typeof makePlane>} plane @param {number[][]} points @param {string} cls
 */
export function reachOutline(plane, points, cls) {
  return svg(
    "polygon",
    { class: `reach guide ${cls}`, points: points.map(([x, y]) => `${plane.sx(x)},${plane.sy(y)}`).join(" ") },
    plane.layers.backdrop,
  );
}

/**
 * Mark `label` as the name of the picture point `p` (an arrow's tip, a dot, an arc's middle):
 * place.js keeps it near there, with a leader back to it when it must stand farther.
 * @param {SVGTextElement} label @param {number[]} p
 */
export function named(label, [x, y]) {
  label.dataset.at = `${x.toFixed(1)},${y.toFixed(1)}`;
}

/**
 * A plane range that shows every point (and the origin) with room around it for labels,
 * rounded out to the grid: lay a plane out for the head it draws, not for numbers typed.
 * `origin` is the least room kept on every side of the origin, so no axis stops just past it.
 * @param {number[][]} points @param {{pad?: number, step?: number, origin?: number}} [o]
 * @returns {{x: [number, number], y: [number, number]}}
 */
export function around(points, { pad = 0.4, step = 0.5, origin = 0 } = {}) {
  const r = Math.max(0, origin - pad);
  const xs = [-r, r, ...points.map((p) => p[0])],
    ys = [-r, r, ...points.map((p) => p[1])];
  const out = (v, sign) => (sign < 0 ? Math.floor((v - pad) / step) : Math.ceil((v + pad) / step)) * step;
  return {
    x: [out(Math.min(...xs), -1), out(Math.max(...xs), 1)],
    y: [out(Math.min(...ys), -1), out(Math.max(...ys), 1)],
  };
}

/**
 * An arc between two directions at the origin, with the angle written beside it: an
 * angle the prose talks about is drawn, not only printed. `cls` gives it a role's colour;
 * `name` makes its degrees a read-out (data-readout). `at` puts the label that far along the sweep (the middle by default).
 * @param {ReturnType<typeof makePlane>} plane @param {{radius?: number, cls?: string, name?: string, at?: number}} [o]
 */
export function arc(plane, { radius = 34, cls = "", name = "", at: along = 0.5 } = {}) {
  const path = svg("path", { class: `arc ${cls}`.trim() }, plane.layers.under);
  const text = svg(
    "text",
    { class: `label arc-label ${cls}`.trim(), ...(name ? { "data-readout": name } : {}) },
    plane.layers.labels,
  );
  return {
    /** @param {number[]|null} a (null hides the arc) @param {number[]} b @param {string} label */
    set(a, b, label) {
      const hidden = !a || !b || Math.hypot(...a) === 0 || Math.hypot(...b) === 0;
      path.style.display = text.style.display = hidden ? "none" : "";
      if (hidden) {
        text.textContent = ""; // a hidden arc's read-out says nothing, not its last angle
        return;
      }
      const ox = plane.sx(0),
        oy = plane.sy(0);
      const ta = Math.atan2(a[1], a[0]),
        tb = Math.atan2(b[1], b[0]);
      let sweep = tb - ta;
      while (sweep > Math.PI) sweep -= 2 * Math.PI;
      while (sweep < -Math.PI) sweep += 2 * Math.PI;
      const at = (t, r = radius) => [ox + r * Math.cos(t), oy - r * Math.sin(t)];
      const [x0, y0] = at(ta),
        [x1, y1] = at(ta + sweep);
      put(path, "d", `M ${x0} ${y0} A ${radius} ${radius} 0 0 ${sweep > 0 ? 0 : 1} ${x1} ${y1}`);
      // the label at `along` of the sweep: off its middle where another arrow runs through it
      const [lx, ly] = at(ta + sweep * along, radius + 16);
      named(text, at(ta + sweep * along));
      put(text, "x", lx);
      put(text, "y", ly + 4);
      put(text, "text-anchor", "middle");
      if (text.textContent !== label) text.textContent = label;
    },
  };
}

/**
 * A labelled arrow from `from` to `to`; `set` moves it, `set(null)` hides it; `g` holds its
 * shaft and head, for a class that restyles both.
 * @param {ReturnType<typeof makePlane>} plane @param {{cls: string, label?: string}} o
 */
export function arrow(plane, { cls, label = "" }) {
  const g = svg("g", { class: `arrow ${cls}` }, plane.layers.shapes);
  const shaft = svg("line", {}, g);
  const head = svg("polygon", {}, g);
  const text = svg("text", { class: `label ${cls}` }, plane.layers.labels);
  const mark = (/** @type {string} */ name) => {
    const token = tokenOf(name);
    for (const el of [g, text]) {
      if (token) el.setAttribute("data-token", token);
      else el.removeAttribute("data-token");
    }
  };
  setSvg(text, label);
  mark(label);
  let shown = label;
  return {
    g,
    /** @param {number[]|null} to @param {number[]} [from] @param {string} [newLabel] */
    set(to, from = [0, 0], newLabel) {
      const hidden = to === null || !Number.isFinite(to[0]) || !Number.isFinite(to[1]);
      g.style.display = text.style.display = hidden ? "none" : "";
      if (hidden) return;
      if (newLabel !== undefined && newLabel !== shown) {
        setSvg(text, newLabel);
        mark(newLabel);
        shown = newLabel;
      }
      const ax = plane.sx(from[0]),
        ay = plane.sy(from[1]);
      const bx = plane.sx(to[0]),
        by = plane.sy(to[1]);
      const len = Math.hypot(bx - ax, by - ay);
      const ux = len ? (bx - ax) / len : 1,
        uy = len ? (by - ay) / len : 0;
      // the head is 11 px on screen, as its shaft's stroke is (kit.css), at any scale
      const size = Math.min(11 * typeScale(plane.root), len * 0.5);
      // each written only when it changes: an arrow that stays put costs its draw nothing
      put(shaft, "x1", ax);
      put(shaft, "y1", ay);
      put(shaft, "x2", bx - ux * size * 0.8);
      put(shaft, "y2", by - uy * size * 0.8);
      const px = -uy * size * 0.45,
        py = ux * size * 0.45;
      put(
        head,
        "points",
        `${bx},${by} ${bx - ux * size + px},${by - uy * size + py} ${bx - ux * size - px},${by - uy * size - py}`,
      );
      // the label sits just past the tip, pushed outward along the arrow
      named(text, [bx, by]);
      put(text, "x", bx + ux * 12);
      put(text, "y", by + uy * 12 + 4);
      put(text, "text-anchor", ux > 0.35 ? "start" : ux < -0.35 ? "end" : "middle");
    },
  };
}

/**
 * The foot of the perpendicular from the tip of `q` onto the line through `k`,
 * drawn as a dashed drop and a thick shadow along k.
 * @returns {{set(q: number[], k: number[]): number, drop: SVGLineElement, along: SVGLineElement}} set
 *   returns the signed shadow length
 */
export function shadow(plane, { cls = "shadow" } = {}) {
  const drop = svg("line", { class: "drop" }, plane.layers.under);
  const along = svg("line", { class: cls }, plane.layers.under);
  return {
    drop,
    along,
    set(q, k) {
      const kk = k[0] * k[0] + k[1] * k[1];
      const t = kk ? (q[0] * k[0] + q[1] * k[1]) / kk : 0;
      const foot = [t * k[0], t * k[1]];
      /** @type {[SVGLineElement, number[], number[]][]} */
      const segments = [
        [drop, q, foot],
        [along, [0, 0], foot],
      ];
      for (const [el, a, b] of segments) {
        el.setAttribute("x1", String(plane.sx(a[0])));
        el.setAttribute("y1", String(plane.sy(a[1])));
        el.setAttribute("x2", String(plane.sx(b[0])));
        el.setAttribute("y2", String(plane.sy(b[1])));
      }
      return t * Math.sqrt(kk);
    },
  };
}

/**
 * The type scale's label and tick steps (style.css: --type-label, --type-tick), in px, as
 * the picture sees them: the article's root or a notebook widget's. Read once per picture,
 * not per draw, where it would force a style recalc each frame.
 * @param {Element} picture @returns {{label: number, tick: number}}
 */
function typeSizes(picture) {
  let known = readSizes.get(picture);
  if (!known) {
    const style = getComputedStyle(picture);
    const step = (/** @type {string} */ name) => Number.parseFloat(style.getPropertyValue(`--type-${name}`));
    known = { label: step("label"), tick: step("tick") };
    if (!known.label || !known.tick) return TYPE_FALLBACK; // not in a document yet: ask again next time
    readSizes.set(picture, known);
  }
  return known;
}
const TYPE_FALLBACK = { label: 13.5, tick: 11.5 };

/** @type {WeakMap<Element, {label: number, tick: number}>} */
const readSizes = new WeakMap();

/** @type {WeakMap<Element, {font: string, widths: Map<string, number>}>} */
let fonts = new WeakMap();

/** Forget every width measured: the page's face has arrived, and text is measured anew in it. */
export function forgetTextWidths() {
  fonts = new WeakMap();
}
/** @type {CanvasRenderingContext2D|null|undefined} */
let ruler;

/**
 * How wide a label's text runs, in the picture's units: measured on a canvas in the labels'
 * own font (no layout of the page, unlike getBBox) once per text, or, before the picture
 * has a font, estimated at 0.58 em a character. A subscript is measured at full size: a
 * little wider than drawn, never narrower.
 * @param {ReturnType<typeof makePlane>} plane @param {SVGTextElement} label @param {number} em
 */
function textWidth(plane, label, em) {
  const text = label.textContent ?? "";
  let known = fonts.get(plane.root);
  if (!known) {
    const style = getComputedStyle(label);
    if (!style.fontFamily) return text.length * 0.58 * em; // not in a document yet
    // measured at 100 px and kept per em, so a change of the stage's --px needs no new measure
    known = { font: `${style.fontWeight} 100px ${style.fontFamily}`, widths: new Map() };
    fonts.set(plane.root, known);
  }
  let width = known.widths.get(text);
  if (width === undefined) {
    if (ruler === undefined) ruler = document.createElement("canvas").getContext("2d");
    if (!ruler) return text.length * 0.58 * em;
    ruler.font = known.font;
    width = ruler.measureText(text).width / 100;
    known.widths.set(text, width);
  }
  return width * em;
}

/**
 * Where each shown arrow label sits, from its text's width rather than its box (getBBox
 * would force a layout of the page on every drag), 1.15 em tall.
 * @param {ReturnType<typeof makePlane>} plane
 * @returns {{label: SVGTextElement, x: number, y: number, width: number, height: number, at?: {x: number, y: number}}[]}
 */
function labelBoxes(plane) {
  const em = typeSizes(plane.root).label * typeScale(plane.root);
  return [...plane.layers.labels.querySelectorAll("text")]
    .filter((label) => label.style.display !== "none" && label.textContent)
    .map((label) => {
      const width = textWidth(plane, label, em),
        anchor = label.getAttribute("text-anchor");
      const x = Number(label.getAttribute("x")) - (anchor === "end" ? width : anchor === "middle" ? width / 2 : 0);
      // where its figure put it, before place.js moves it by dx and dy
      const y = Number(label.getAttribute("y")) - 0.85 * em;
      // a subscript hangs below the line (q_it): its box reaches about a third of an em lower
      const hangs = label.querySelector(".sub") !== null;
      const [ax, ay] = (label.dataset.at ?? "").split(",").map(Number);
      const at = label.dataset.at ? { x: ax, y: ay } : undefined;
      return { label, x, y, width, height: (hangs ? 1.45 : 1.15) * em, at };
    });
}

/** The marks drawn on a plane (arrows, drops, shadows, hulls, dots, knobs), without its axes. */
const drawnMarks = (/** @type {ReturnType<typeof makePlane>} */ plane) => {
  const { under, shapes, handles } = plane.layers;
  return marksIn([under, shapes, handles]);
};

/**
 * The marks of a plane a label must keep off: `drawn` (see drawnMarks, read from the page
 * once per draw and shared by the labels and the ticks), and (unless `axes` is false) the
 * two axes; the labels' leaders only when asked (a tick number keeps off them; a label's
 * own placing draws them anew).
 * @param {ReturnType<typeof makePlane>} plane @param {ReturnType<typeof marksIn>} drawn
 * @param {{axes?: boolean, leaders?: boolean}} [o]
 */
function planeMarks(plane, drawn, { axes = true, leaders = false } = {}) {
  const { grid } = plane.layers;
  const found = { segments: [...drawn.segments], discs: [...drawn.discs] };
  if (leaders) {
    const lines = marksIn([plane.layers.leaders]);
    found.segments.push(...lines.segments);
    found.discs.push(...lines.discs);
  }
  for (const axis of axes ? grid.querySelectorAll(".axis") : []) {
    const at = (/** @type {string} */ name) => Number(axis.getAttribute(name));
    // its 1.2 px stroke is drawn in screen px (kit.css): half of it, and as much again for a
    // label's ink, which a canvas measure can put a pixel off
    found.segments.push({ x1: at("x1"), y1: at("y1"), x2: at("x2"), y2: at("y2"), half: 1.2 * typeScale(plane.root) });
  }
  // a zoom's "× 2" in the corner is a mark too: labels keep off it (as a disc over its text)
  const badge = grid.querySelector(".zoom-badge");
  if (badge) {
    const em = typeSizes(plane.root).tick * typeScale(plane.root);
    const r = 1.3 * em; // "× 4" is about 2.2 em wide and 1 em tall
    found.discs.push({
      x: Number(badge.getAttribute("x")) - 0.5 * em - r,
      y: Number(badge.getAttribute("y")) + 0.9 * em,
      r,
    });
  }
  return found;
}

/**
 * Hide the axis numbers that a mark (an arrow, its head, a drop), a label or one of `tips`
 * would sit on.
 * @param {ReturnType<typeof makePlane>} plane @param {number[][]} [tips]
 * @param {ReturnType<typeof marksIn>} [drawn] the plane's marks, when the caller has them
 */
export function clearTicks(plane, tips = [], drawn = drawnMarks(plane)) {
  // a tick number stands beside its axis, not on it, and off the leaders
  const marks = planeMarks(plane, drawn, { axes: false, leaders: true });
  const taken = labelBoxes(plane).map(({ x, y, width, height, label }) => ({
    x: x + Number(label.getAttribute("dx") ?? 0),
    y: y + Number(label.getAttribute("dy") ?? 0),
    width,
    height,
  }));
  taken.push(...tips.map((p) => ({ x: plane.sx(p[0]) - 9, y: plane.sy(p[1]) - 9, width: 18, height: 18 })));
  const em = typeSizes(plane.root).tick * typeScale(plane.root);
  const everywhere = { x: -1e6, y: -1e6, width: 2e6, height: 2e6 };
  for (const tick of plane.layers.grid.querySelectorAll("text.tick")) {
    const x = Number(tick.getAttribute("x")) + offsetOf(tick, "dx", em),
      y = Number(tick.getAttribute("y")) + offsetOf(tick, "dy", em);
    const w = (tick.textContent ?? "").length * 0.62 * em,
      left = tick.classList.contains("end") ? x - w : x - w / 2;
    // 2 px of air: a minus sign or a digit runs a little wider than its estimate
    const box = { x: left - 2, y: y - 0.8 * em - 2, width: w + 4, height: 0.95 * em + 4 };
    /** @type {SVGElement} */ (tick).style.display = free(box, marks, taken, everywhere) ? "" : "none";
  }
}

/**
 * Move each arrow label off every mark of the plane and off the labels before it, keeping
 * it near its tip (place.js), then hide the axis numbers a mark or a label sits on. Call it
 * at the end of draw, once every label and mark is in place. `apart` (in em) keeps labels
 * that far from one another, for a plane crowded with names (the notebook's real heads).
 * @param {ReturnType<typeof makePlane>} plane @param {{apart?: number}} [o]
 */
export function untangle(plane, { apart } = {}) {
  const { x0, x1, y0, y1 } = plane.bounds; // the window shown, which compose may have widened
  const bounds = {
    x: plane.sx(x0) + 2,
    y: plane.sy(y1) + 2,
    width: (x1 - x0) * plane.unit - 4,
    height: (y1 - y0) * plane.unit - 4,
  };
  const labels = labelBoxes(plane).map(({ label, x, y, width, height, at }) => ({
    el: label,
    box: { x, y, width, height },
    at,
  }));
  const em = typeSizes(plane.root).label * typeScale(plane.root);
  const drawn = drawnMarks(plane);
  place(labels, planeMarks(plane, drawn), bounds, { em, leaders: plane.layers.leaders, apart: apart && apart * em });
  clearTicks(plane, [], drawn);
}
