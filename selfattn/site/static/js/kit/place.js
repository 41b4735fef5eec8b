// Labels placed off the marks of a picture: each label starts where its figure put it (past
// an arrow's tip, beside a point) and, if its box would touch a mark (an arrow's shaft or
// head, a drop, a shadow, an axis, a dot, a knob) or a label placed before it, moves to the
// free spot around that start nearest the point it names. A label that ends up more than an
// em from that point gets a leader: a thin line in its own colour from its box to the point,
// kept off every other label. Boxes are estimated from the text, not measured, so a drag
// never forces a layout of the page.

import { typeScale } from "./chart.js";
import { put, svg } from "./dom.js";

/** @typedef {{x: number, y: number, width: number, height: number}} Box */
/** @typedef {{x1: number, y1: number, x2: number, y2: number, half: number}} Segment */
/** @typedef {{x: number, y: number}} Point */

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
        // an arc, a curve or a bracket, as chords a few units long, computed from its `d`
        // (kit paths use M, L, H, V, A and Z): no getTotalLength, which forces a style and
        // layout pass right after the draw's writes (issue 50)
        const half = halfStroke(el);
        for (const [x1, y1, x2, y2] of chordsOf(el)) segments.push({ x1, y1, x2, y2, half });
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

/** @type {Map<string, number[][]>} chords of each path's `d` seen lately, by its text */
const chordCache = new Map();
const CHORD = 4; // user units per chord of an arc

/**
 * A path's outline as chords [x1, y1, x2, y2], from its `d` alone for the commands the kit
 * writes (absolute M, L, H, V, A, Z; an arc's chords from its centre); a path with any other
 * command is measured by the browser, as before.
 * @param {SVGPathElement} el
 */
export function chordsOf(el) {
  const d = el.getAttribute("d") ?? "";
  let known = chordCache.get(d);
  if (known) return known;
  known = parsePath(d) ?? measuredChords(el);
  if (chordCache.size > 500) chordCache.clear();
  chordCache.set(d, known);
  return known;
}

/** @param {SVGPathElement} el */
function measuredChords(el) {
  const total = el.getAttribute("d") ? el.getTotalLength() : 0;
  const n = Math.ceil(total / CHORD);
  const out = [];
  let a = n ? el.getPointAtLength(0) : null;
  for (let i = 1; a && i <= n; i += 1) {
    const b = el.getPointAtLength((total * i) / n);
    out.push([a.x, a.y, b.x, b.y]);
    a = b;
  }
  return out;
}

/** @param {string} d @returns {number[][]|null} null where a command is not one of ours */
function parsePath(d) {
  const tokens = d.match(/[A-Za-z]|-?\d*\.?\d+(?:e[-+]?\d+)?/g) ?? [];
  const out = [];
  let x = 0,
    y = 0,
    sx = 0,
    sy = 0,
    k = 0,
    command = "";
  const next = () => Number(tokens[k++]);
  while (k < tokens.length) {
    if (/[A-Za-z]/.test(tokens[k])) command = tokens[k++];
    const line = (/** @type {number} */ nx, /** @type {number} */ ny) => {
      out.push([x, y, nx, ny]);
      x = nx;
      y = ny;
    };
    if (command === "M") {
      x = sx = next();
      y = sy = next();
      command = "L"; // pairs after a move are lines
    } else if (command === "L") line(next(), next());
    else if (command === "H") line(next(), y);
    else if (command === "V") line(x, next());
    else if (command === "Z" || command === "z") {
      line(sx, sy);
      if (k < tokens.length && !/[A-Za-z]/.test(tokens[k])) return null;
    } else if (command === "A") {
      const [rx, ry, , large, sweep, ex, ey] = [next(), next(), next(), next(), next(), next(), next()];
      if (Math.abs(rx - ry) > 1e-6 || !rx) {
        line(ex, ey); // an ellipse the kit never draws: its chord is near enough
        continue;
      }
      // the centre of a circular arc from its two ends (SVG's endpoint parametrisation)
      const mx = (x - ex) / 2,
        my = (y - ey) / 2;
      const r = Math.max(rx, Math.hypot(mx, my));
      const h = Math.sqrt(Math.max(0, r * r - mx * mx - my * my)) / Math.hypot(mx, my || 1e-12);
      const sign = large === sweep ? -1 : 1;
      const cx = (x + ex) / 2 + sign * h * my,
        cy = (y + ey) / 2 - sign * h * mx;
      const a0 = Math.atan2(y - cy, x - cx);
      let turn = Math.atan2(ey - cy, ex - cx) - a0;
      if (sweep && turn < 0) turn += 2 * Math.PI;
      if (!sweep && turn > 0) turn -= 2 * Math.PI;
      const n = Math.max(1, Math.ceil((Math.abs(turn) * r) / CHORD));
      for (let i = 1; i <= n; i += 1) {
        const at = a0 + (turn * i) / n;
        line(i === n ? ex : cx + r * Math.cos(at), i === n ? ey : cy + r * Math.sin(at));
      }
    } else return null;
  }
  return out;
}

/**
 * Does segment `s`, thickened by its stroke and CLEAR, touch box `b`? (Liang–Barsky clip,
 * after a bounding-box test that rejects most segments at once.) It runs for every mark
 * and every spot tried, hundreds of thousands of times a draw in a crowded plane, so it
 * allocates nothing (issue 50: arrays here made most of a draw's time, and its collector's).
 */
function crosses(/** @type {Segment} */ s, /** @type {Box} */ b) {
  const pad = s.half + CLEAR;
  const l = b.x - pad,
    r = b.x + b.width + pad,
    t = b.y - pad,
    u = b.y + b.height + pad;
  if ((s.x1 < l && s.x2 < l) || (s.x1 > r && s.x2 > r) || (s.y1 < t && s.y2 < t) || (s.y1 > u && s.y2 > u))
    return false;
  const dx = s.x2 - s.x1,
    dy = s.y2 - s.y1;
  let lo = 0,
    hi = 1;
  const clip = (/** @type {number} */ p, /** @type {number} */ q) => {
    if (p === 0) return q >= 0;
    const k = q / p;
    if (p < 0) lo = Math.max(lo, k);
    else hi = Math.min(hi, k);
    return lo <= hi;
  };
  return clip(-dx, s.x1 - l) && clip(dx, r - s.x1) && clip(-dy, s.y1 - t) && clip(dy, u - s.y1);
}

const meets = (/** @type {Box} */ a, /** @type {Box} */ b, apart = CLEAR) =>
  a.x < b.x + b.width + apart &&
  b.x < a.x + a.width + apart &&
  a.y < b.y + b.height + apart &&
  b.y < a.y + a.height + apart;

/**
 * How many things box `b` touches: marks, boxes already taken (nearer than `apart`), and the
 * outside of `bounds` (which counts 100). Counting stops at `enough`: a spot that touches
 * that many cannot win, and how many more it touches changes nothing.
 * @param {Box} b @param {ReturnType<typeof marksIn>} marks @param {Box[]} taken @param {Box} bounds
 * @param {number} [apart] @param {number} [enough]
 */
function touches(b, { segments, discs }, taken, bounds, apart = CLEAR, enough = Number.POSITIVE_INFINITY) {
  const out =
    b.x < bounds.x ||
    b.y < bounds.y ||
    b.x + b.width > bounds.x + bounds.width ||
    b.y + b.height > bounds.y + bounds.height;
  let n = out ? 100 : 0; // never off the picture while any spot inside is left
  for (const o of taken) if (n < enough && meets(b, o, apart)) n += 1;
  for (const s of segments) if (n < enough && crosses(s, b)) n += 1;
  for (const { x, y, r } of discs) {
    if (n >= enough) break;
    const cx = Math.max(b.x, Math.min(x, b.x + b.width)),
      cy = Math.max(b.y, Math.min(y, b.y + b.height));
    if (Math.hypot(cx - x, cy - y) < r + CLEAR) n += 1;
  }
  return n;
}

/**
 * Is box `b` clear of the marks, of the boxes already taken, and inside `bounds`?
 * @param {Box} b @param {ReturnType<typeof marksIn>} marks @param {Box[]} taken @param {Box} bounds
 */
export function free(b, marks, taken, bounds) {
  return touches(b, marks, taken, bounds) === 0;
}

/** How far box `b` stands from point `at`: 0 when `at` is inside it. */
const gapTo = (/** @type {Box} */ b, /** @type {Point} */ at) =>
  Math.hypot(Math.max(b.x - at.x, 0, at.x - b.x - b.width), Math.max(b.y - at.y, 0, at.y - b.y - b.height));

/**
 * The leader from box `b` to the point `at` it names, when the box stands more than `em`
 * away: from just off the box's nearest edge to just short of the point (the tip stays the
 * tip's). Null when the box is near enough to be read as the point's name.
 * @param {Box} b @param {Point|undefined} at @param {number} em @param {number} half
 * @returns {Segment|null}
 */
function leaderOf(b, at, em, half) {
  if (!at || gapTo(b, at) <= em) return null;
  const x = Math.max(b.x, Math.min(at.x, b.x + b.width)),
    y = Math.max(b.y, Math.min(at.y, b.y + b.height));
  const length = Math.hypot(at.x - x, at.y - y);
  const ux = (at.x - x) / length,
    uy = (at.y - y) / length;
  const off = CLEAR + half + 1,
    short = 0.2 * em;
  // a leader shorter than an em reads as a minus sign beside its name ("q_it –"): the name
  // is near enough without one
  if (length - off - short < em) return null;
  return { x1: x + ux * off, y1: y + uy * off, x2: at.x - ux * short, y2: at.y - uy * short, half };
}

/**
 * The spot for one label: its start if free, else, of the spots in reach, the one that
 * touches fewest things (marks, boxes already taken, the lines of other leaders, and,
 * through its own leader, the boxes taken), nearest the point it names (or, naming none,
 * nearest its start).
 * @param {{box: Box, at?: Point}} label @param {ReturnType<typeof marksIn>} allMarks
 * @param {Box[]} allTaken @param {Segment[]} allLines @param {Box} bounds @param {number} em @param {number} half
 * @param {number} [apart]
 */
function spot({ box, at }, allMarks, allTaken, allLines, bounds, em, half, apart = CLEAR) {
  // every spot tried lies within the farthest ring of the start, and its leader between it
  // and the point: what lies outside that reach can touch none of them, so it is set aside
  // once rather than tested for every spot
  const reach = RINGS[RINGS.length - 1];
  const near = {
    x: Math.min(box.x, at?.x ?? box.x) - reach,
    y: Math.min(box.y, at?.y ?? box.y) - reach,
    width: 0,
    height: 0,
  };
  near.width = Math.max(box.x + box.width, at?.x ?? box.x) + reach - near.x;
  near.height = Math.max(box.y + box.height, at?.y ?? box.y) + reach - near.y;
  const within = (/** @type {Segment} */ s) => {
    const pad = s.half + CLEAR;
    return !(
      Math.max(s.x1, s.x2) < near.x - pad ||
      Math.min(s.x1, s.x2) > near.x + near.width + pad ||
      Math.max(s.y1, s.y2) < near.y - pad ||
      Math.min(s.y1, s.y2) > near.y + near.height + pad
    );
  };
  const marks = {
    segments: allMarks.segments.filter(within),
    discs: allMarks.discs.filter(({ x, y, r }) => meets(near, { x: x - r, y: y - r, width: 2 * r, height: 2 * r })),
  };
  const taken = allTaken.filter((o) => meets(near, o, Math.max(apart, half + CLEAR)));
  const lines = allLines.filter(within);
  // how many things a spot touches, counted only as far as can still matter: up to
  // `enough` (see touches)
  const cost = (/** @type {Box} */ b, enough = Number.POSITIVE_INFINITY) => {
    let n = touches(b, marks, taken, bounds, apart, enough);
    for (const s of lines) if (n < enough && crosses(s, b)) n += 1;
    const line = n < enough ? leaderOf(b, at, em, half) : null;
    for (const o of line ? taken : []) if (n < enough && crosses(line, o)) n += 1;
    return n;
  };
  let best = box,
    fewest = cost(box),
    far = at ? gapTo(box, at) : 0;
  for (const d of RINGS) {
    if (!fewest) break;
    for (let k = 0; d && k < TURNS; k += 1) {
      const turn = (2 * Math.PI * k) / TURNS;
      const b = { ...box, x: box.x + d * Math.cos(turn), y: box.y + d * Math.sin(turn) };
      // a quarter of the way moved counts too: of two spots as near the point, the one
      // nearer where its figure put it
      const away = at ? gapTo(b, at) + d / 4 : d;
      // it wins by touching fewer, or as few and nearer: counting past that is wasted
      const touched = cost(b, away < far ? fewest + 1 : fewest);
      if (touched < fewest || (touched === fewest && away < far)) [best, fewest, far] = [b, touched, away];
    }
    // naming no point, the first ring with a free spot is the nearest; naming one, a free
    // spot on a farther ring may stand nearer the point, so every ring is tried
    if (!fewest && !at) break;
  }
  return { box: best, leader: leaderOf(best, at, em, half), touched: fewest };
}

/** @type {WeakMap<Element, SVGLineElement>} */
const leaderLines = new WeakMap();

/**
 * Move each label to a free spot near the point it names (see `spot`), by setting its dx
 * and dy, and draw a leader in `leaders` for each one left more than `em` from its point.
 * Each label's `box` is its estimated box at its start, `at` the point it names (an
 * arrow's tip, a dot). Leaders never push a label away: a label that lands on another's
 * leader moves that other label instead, in a second pass. A faint label is placed after
 * every other. `apart` is the gap kept between two labels (a crowd of names reads as one
 * list unless they stand further apart than from the marks). Returns the boxes taken, in that order.
 * @param {{el: SVGTextElement, box: Box, at?: Point}[]} named
 * @param {ReturnType<typeof marksIn>} marks @param {Box} bounds
 * @param {{em?: number, leaders?: Element, apart?: number}} [o]
 */
export function place(named, marks, bounds, { em = Number.POSITIVE_INFINITY, leaders, apart = CLEAR } = {}) {
  // the subject before the ground: a faint arrow's name gives way to the others
  const faint = (/** @type {{el: Element}} */ l) => l.el.classList.contains("faint");
  const labels = [...named.filter((l) => !faint(l)), ...named.filter(faint)];
  const lines = labels.map(({ el }) => {
    if (!leaders) return null;
    let line = leaderLines.get(el);
    if (!line) {
      line = svg("line", {}, leaders);
      leaderLines.set(el, line);
    }
    const roles = [...el.classList].filter((c) => c !== "label").join(" ");
    put(line, "class", `leader ${roles}`.trim());
    return line;
  });
  const half = lines[0] ? halfStroke(lines[0]) : 0;
  /** @param {number[]} order @returns {{box: Box, leader: Segment|null, touched: number}[]} by label */
  const arrange = (order) => {
    /** @type {{box: Box, leader: Segment|null, touched: number}[]} */
    const spots = [];
    for (const i of order)
      spots[i] = spot(
        labels[i],
        marks,
        order.flatMap((j) => (spots[j] ? [spots[j].box] : [])),
        [],
        bounds,
        em,
        half,
        apart,
      );
    // a leader under a label placed after it: move the leader's own label, among all the others
    spots.forEach((s, i) => {
      const line = s.leader;
      const others = spots.filter((_, j) => j !== i);
      if (!line || !others.some((o) => crosses(line, o.box))) return;
      const lines = others.flatMap((o) => (o.leader ? [o.leader] : []));
      spots[i] = spot(
        labels[i],
        marks,
        others.map((o) => o.box),
        lines,
        bounds,
        em,
        half,
        apart,
      );
    });
    return spots;
  };
  // how well an arrangement reads: every touch first (a leader over a label too), then how
  // far the names stand from what they name
  const score = (/** @type {ReturnType<typeof arrange>} */ spots) =>
    spots.reduce((sum, { box, leader, touched }, i) => {
      const { at } = labels[i];
      const over = leader ? spots.filter((o, j) => j !== i && crosses(leader, o.box)).length : 0;
      return sum + 1e4 * (touched + over) + (at ? gapTo(box, at) : 0);
    }, 0);
  let spots = arrange(labels.map((_, i) => i));
  if (spots.some((s) => s.leader)) {
    // a second try with the names that needed a leader placed first (the subject still
    // before the ground): a crowd's far names take the near spots, the others what is left
    const first = (/** @type {number} */ i) => (spots[i].leader ? 0 : 1) + (faint(labels[i]) ? 2 : 0);
    const order = labels.map((_, i) => i).sort((i, j) => first(i) - first(j));
    const other = arrange(order);
    if (score(other) < score(spots)) spots = other;
  }
  // each label's offset and leader written only where they change: a text's dx or dy
  // written, even unchanged, lays it out again (kit/dom.js put)
  /** @type {Set<Element>} */
  const drawnLines = new Set();
  labels.forEach(({ el, box }, i) => {
    const { box: best, leader } = spots[i];
    const dx = best.x - box.x,
      dy = best.y - box.y;
    if (dx) put(el, "dx", dx.toFixed(1));
    else el.removeAttribute("dx");
    if (dy) put(el, "dy", dy.toFixed(1));
    else el.removeAttribute("dy");
    const line = lines[i];
    if (line && leader) {
      for (const end of ["x1", "y1", "x2", "y2"]) put(line, end, leader[end].toFixed(1));
      drawnLines.add(line);
    }
  });
  for (const line of leaders?.querySelectorAll("line") ?? []) {
    /** @type {SVGElement} */ (line).style.display = drawnLines.has(line) ? "" : "none";
  }
  return spots.map((s) => s.box);
}
