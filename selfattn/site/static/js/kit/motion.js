// Motion for discrete changes (next row, flip, shuffle, add a term): the geometry a draw
// changes eases from where it was to where it is, so the eye can follow what moved.
// Figures need no code of their own for it: the scaffold snapshots the picture's
// geometry before such a draw and eases every changed number after it. Drags do not
// ease, and with prefers-reduced-motion nothing does; nor, after its first frames, on a device
// too slow to ease at its frame rate: there the picture jumps to its end.

const GEOMETRY = ["x", "y", "width", "height", "x1", "y1", "x2", "y2", "cx", "cy", "r", "points", "d", "transform"];
const DURATION = 280;
// ms between two frames of an ease past which the device is not easing but stalling (two
// frames missed in a row): the ease ends at once, and the next input waits behind no frame
// of it (issue 50: at 4x CPU an ease's frames are most of what a click costs)
const STALLED = 42;
const NUMBER = /-?\d*\.?\d+(?:e[-+]?\d+)?/gi;

/** @type {WeakMap<Element, () => void>} the running ease of each figure, to finish it early */
const running = new WeakMap();

/** Whether the reader asked for no motion. */
export function still() {
  return matchMedia("(prefers-reduced-motion: reduce)").matches;
}

/** Whether a figure's picture is easing now. @param {Element} el */
export function easing(el) {
  return running.has(el);
}

/** Jump a running ease to its end, before any other draw writes the same attributes. @param {Element} el */
export function settle(el) {
  running.get(el)?.();
}

/**
 * The geometry of every element in the figure's pictures, before a draw.
 * @param {Element} el @returns {Map<Element, Record<string, string>>}
 */
export function snapshot(el) {
  settle(el);
  const shot = new Map();
  for (const node of el.querySelectorAll(".stage svg *")) {
    /** @type {Record<string, string>} */
    const attrs = {};
    for (const name of GEOMETRY) {
      const value = node.getAttribute(name);
      if (value !== null) attrs[name] = value;
    }
    shot.set(node, attrs);
  }
  return shot;
}

/**
 * Ease every geometry attribute that the draw changed from its old numbers to its new
 * ones, when both have the same shape (same words, same count of numbers).
 * @param {Element} el @param {Map<Element, Record<string, string>>} before
 */
export function ease(el, before) {
  if (still()) return;
  /** @type {{node: Element, name: string, from: number[], to: number[], parts: string[], now: string}[]} */
  const moves = [];
  for (const [node, attrs] of before) {
    if (!node.isConnected) continue;
    for (const [name, old] of Object.entries(attrs)) {
      const now = node.getAttribute(name);
      if (now === null || now === old) continue;
      const from = (old.match(NUMBER) ?? []).map(Number),
        to = (now.match(NUMBER) ?? []).map(Number);
      const parts = now.split(NUMBER);
      if (from.length !== to.length || old.split(NUMBER).join("|") !== parts.join("|")) continue;
      moves.push({ node, name, from, to, parts, now });
    }
  }
  if (!moves.length) return;
  const start = performance.now();
  let frame = 0,
    last = Number.NaN; // the previous frame's time
  const paint = (/** @type {number} */ k) => {
    for (const { node, name, from, to, parts } of moves) {
      const values = from.map((f, i) => f + (to[i] - f) * k);
      node.setAttribute(
        name,
        parts.map((p, i) => p + (i < values.length ? Number(values[i].toFixed(2)) : "")).join(""),
      );
    }
  };
  const finish = () => {
    cancelAnimationFrame(frame);
    for (const { node, name, now } of moves) node.setAttribute(name, now);
    running.delete(el);
  };
  const step = (/** @type {number} */ now) => {
    // a frame may be stamped before the draw that started the ease: never ease backwards
    const t = Math.max(0, Math.min(1, (now - start) / DURATION));
    if (t >= 1 || now - last > STALLED) return finish();
    last = now;
    paint(1 - (1 - t) ** 3); // ease-out
    frame = requestAnimationFrame(step);
  };
  paint(0);
  running.set(el, finish);
  frame = requestAnimationFrame(step);
}
