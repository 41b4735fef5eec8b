// Labels placed off the marks of a picture: each label starts where its figure put it (past
// an arrow's tip, beside a point) and, if its box would touch a mark (an arrow's shaft or
// head, a drop, a shadow, an axis, a dot, a knob) or a label placed before it, moves to the
// nearest free spot around that start. Boxes are estimated from the text, not measured, so
// a drag never forces a layout of the page.

import { typeScale } from "./chart.js";

/** @typedef {{x: number, y: number, width: number, height: number}} Box */
/** @typedef {{x1: number, y1: number, x2: number, y2: number, half: number}} Segment */

const CLEAR = 2; // px left between a label's box and a mark
// how far from its start a label may move, nearest first; the last rings only for a label
// with no free spot nearer, as on a plane shrunk to a phone, where 70 units are 40 px
const RINGS = [0, 6, 12, 18, 26, 34, 44, 56, 70, 86, 104];
const TURNS = 12; // directions tried on each ring

/** @type {WeakMap<Element, {cls: string, half: number, screen: boolean}>} */
const widths = new WeakMap();
/**
 * Half an element's stroke width in its picture's units, its style read once per class it
 * has (a style read forces a recalc). A stroke drawn in screen px (kit.css's
 * non-scaling-stroke) is that many px whatever the scale: times the picture's --px.
 */
function halfStroke(/** @type {Element} */ el) {
  const cls = el.getAttribute("class") ?? "";
  let known = widths.get(el);
  if (!known || known.cls !== cls) {
    const style = getComputedStyle(el);
    const half = (Number.parseFloat(style.strokeWidth) || 1) / 2;
    known = { cls, half, screen: style.vectorEffect === "non-scaling-stroke" };
    widths.set(el, known);
  }
  const picture = /** @type {SVGElement|null} */ (/** @type {SVGElement} */ (el).ownerSVGElement);
  return known.screen && picture ? known.half * typeScale(picture) : known.half;
}

const drawn = (/** @type {Element} */ el) => {
  for (let e = /** @type {Element|null} */ (el); e && e.tagName !== "svg"; e = e.parentElement) {
    if (/** @type {SVGElement} */ (e).style?.display === "none") return false;
  }
  return true;
};
const num = (/** @type {Element} */ el, /** @type {string} */ name) => Number(el.getAttribute(name) ?? 0);

/**
 * The marks under `layers` as segments (lines, polygon edges, paths cut into chords) and discs (dots, knobs), in
 * the picture's own coordinates (a handle's translate applied).
 * @param {Element[]} layers
 * @returns {{segments: Segment[], discs: {x: number, y: number, r: number}[]}}
 */
export function marksIn(layers) {
  /** @type {Segment[]} */
  const segments = [];
  const discs = [];
  for (const layer of layers) {
    for (const el of layer.querySelectorAll("line, polygon, polyline, circle, path")) {
      if (el.matches(".hit, .gridline, .wash") || !drawn(el)) continue;
      if (el.tagName === "line") {
        segments.push({
          x1: num(el, "x1"),
          y1: num(el, "y1"),
          x2: num(el, "x2"),
          y2: num(el, "y2"),
          half: halfStroke(el),
        });
      } else if (el instanceof SVGPathElement) {
        // an arc or a bracket, as chords a few px long (geometry only: no layout)
        const total = el.getAttribute("d") ? el.getTotalLength() : 0;
        const half = halfStroke(el);
        const n = Math.ceil(total / 4);
        let a = n ? el.getPointAtLength(0) : null;
        for (let i = 1; a && i <= n; i += 1) {
          const b = el.getPointAtLength((total * i) / n);
          segments.push({ x1: a.x, y1: a.y, x2: b.x, y2: b.y, half });
          a = b;
        }
      } else if (el.tagName === "polygon" || el.tagName === "polyline") {
        const p = (el.getAttribute("points") ?? "")
          .trim()
          .split(/[\s,]+/)
          .map(Number);
        const corners = [];
        for (let i = 0; i + 1 < p.length; i += 2) corners.push([p[i], p[i + 1]]);
        const half = halfStroke(el);
        // a polygon closes on its first corner; a polyline (a trail) stays open
        const closed = el.tagName === "polygon";
        corners.forEach(([x1, y1], i) => {
          if (!closed && i === corners.length - 1) return;
          const [x2, y2] = corners[(i + 1) % corners.length];
          segments.push({ x1, y1, x2, y2, half });
        });
      } else {
        const g = el.closest("[transform]");
        const m = /translate\(([-\d.e]+)[ ,]+([-\d.e]+)\)/.exec(g?.getAttribute("transform") ?? "");
        const [tx, ty] = m ? [Number(m[1]), Number(m[2])] : [0, 0];
        discs.push({ x: num(el, "cx") + tx, y: num(el, "cy") + ty, r: num(el, "r") + halfStroke(el) });
      }
    }
  }
  return { segments, discs };
}

/** Does segment `s`, thickened by its stroke and CLEAR, touch box `b`? (Liang–Barsky clip) */
function crosses(/** @type {Segment} */ s, /** @type {Box} */ b) {
  const pad = s.half + CLEAR;
  const [l, r, t, u] = [b.x - pad, b.x + b.width + pad, b.y - pad, b.y + b.height + pad];
  const dx = s.x2 - s.x1,
    dy = s.y2 - s.y1;
  let lo = 0,
    hi = 1;
  for (const [p, q] of [
    [-dx, s.x1 - l],
    [dx, r - s.x1],
    [-dy, s.y1 - t],
    [dy, u - s.y1],
  ]) {
    if (p === 0) {
      if (q < 0) return false;
    } else {
      const k = q / p;
      if (p < 0) lo = Math.max(lo, k);
      else hi = Math.min(hi, k);
      if (lo > hi) return false;
    }
  }
  return true;
}

const meets = (/** @type {Box} */ a, /** @type {Box} */ b) =>
  a.x < b.x + b.width + CLEAR &&
  b.x < a.x + a.width + CLEAR &&
  a.y < b.y + b.height + CLEAR &&
  b.y < a.y + a.height + CLEAR;

/**
 * How many things box `b` touches: marks, boxes already taken, and the outside of `bounds`.
 * @param {Box} b @param {ReturnType<typeof marksIn>} marks @param {Box[]} taken @param {Box} bounds
 */
function touches(b, { segments, discs }, taken, bounds) {
  const out =
    b.x < bounds.x ||
    b.y < bounds.y ||
    b.x + b.width > bounds.x + bounds.width ||
    b.y + b.height > bounds.y + bounds.height;
  return (
    (out ? 100 : 0) + // never off the picture while any spot inside is left
    taken.filter((o) => meets(b, o)).length +
    segments.filter((s) => crosses(s, b)).length +
    discs.filter(({ x, y, r }) => {
      const cx = Math.max(b.x, Math.min(x, b.x + b.width)),
        cy = Math.max(b.y, Math.min(y, b.y + b.height));
      return Math.hypot(cx - x, cy - y) < r + CLEAR;
    }).length
  );
}

/**
 * Is box `b` clear of the marks, of the boxes already taken, and inside `bounds`?
 * @param {Box} b @param {ReturnType<typeof marksIn>} marks @param {Box[]} taken @param {Box} bounds
 */
export function free(b, marks, taken, bounds) {
  return touches(b, marks, taken, bounds) === 0;
}

/**
 * Move each label to the nearest spot around where it stands whose box is free (see
 * `free`), by setting its dx and dy; a label with no free spot in reach takes the spot that
 * touches fewest. Each label's `box` is its estimated box at its start. Returns the boxes taken.
 * @param {{el: SVGTextElement, box: Box}[]} labels
 * @param {ReturnType<typeof marksIn>} marks @param {Box} bounds
 */
export function place(labels, marks, bounds) {
  /** @type {Box[]} */
  const taken = [];
  for (const { el, box } of labels) {
    // the nearest free spot; with none in reach, the spot that touches the fewest things
    let best = box,
      fewest = Infinity;
    search: for (const d of RINGS) {
      for (let k = 0; k < (d ? TURNS : 1); k += 1) {
        const turn = (2 * Math.PI * k) / TURNS;
        const b = { ...box, x: box.x + d * Math.cos(turn), y: box.y + d * Math.sin(turn) };
        const touched = touches(b, marks, taken, bounds);
        if (touched < fewest) [best, fewest] = [b, touched];
        if (!touched) break search;
      }
    }
    const dx = best.x - box.x,
      dy = best.y - box.y;
    if (dx) el.setAttribute("dx", dx.toFixed(1));
    else el.removeAttribute("dx");
    if (dy) el.setAttribute("dy", dy.toFixed(1));
    else el.removeAttribute("dy");
    taken.push(best);
  }
  return taken;
}
