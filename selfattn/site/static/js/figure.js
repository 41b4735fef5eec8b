// The scaffold every figure shares: state, set(partial) and draw(), hung on the element.
// Input writes state; state draws. Redraws are batched to one per animation frame, and a
// change to one of the figure's `discrete` keys (a next row, a flip, a shuffle) eases the
// picture from the old drawing to the new one. An input that arrives while an ease runs
// never waits for it: the ease jumps to its end and the new state is drawn at once, with
// no second ease (a reader clicking through rows sees each row as soon as they click).

import { ease, easing, settle, snapshot } from "./kit/motion.js";

/**
 * Make `el` a figure. `clamp` turns any partial state (from a control, a test or a URL)
 * into a valid one, given the valid state before it (the initial state, at first): a pure
 * function, so a value it refuses falls back on what was there; `draw` paints everything
 * from state.
 * @template S
 * @param {HTMLElement} el
 * @param {{state: S, clamp?: (s: S, previous: S) => S, draw: (s: S) => void, discrete?: string[]}} spec
 * @returns {{state: S, set(partial: Partial<S>): void, redraw(): void}}
 */
export function figure(el, { state, clamp = (s) => s, draw, discrete = [] }) {
  let pending = false;
  let drawn = state;
  const api = {
    state: clamp({ ...state }, state),
    set(partial) {
      api.state = clamp({ ...api.state, ...partial }, api.state);
      if (pending) return;
      pending = true;
      requestAnimationFrame(() => {
        pending = false;
        const hurried = easing(el);
        const jump = !hurried && discrete.some((key) => JSON.stringify(api.state[key]) !== JSON.stringify(drawn[key]));
        const before = jump ? snapshot(el) : null;
        if (!jump) settle(el);
        draw(api.state);
        drawn = api.state;
        if (before) ease(el, before);
        el.dispatchEvent(new Event("input", { bubbles: true }));
      });
    },
    /** Draw the same state again (the picture's type scale changed): at once. */
    redraw() {
      settle(el);
      draw(api.state);
    },
  };
  el.figure = api;
  draw(api.state);
  drawn = api.state;
  return api;
}

/** Clamp x into [lo, hi]; anything that is not a finite number becomes `fallback`. */
export function clampNumber(x, lo, hi, fallback) {
  const n = Number(x);
  return Number.isFinite(n) ? Math.min(hi, Math.max(lo, n)) : fallback;
}

/**
 * Any value → a finite 2-D point at most `reach` from the origin, pulled in along its own
 * direction; what is not a pair becomes `fallback` (a coordinate that is not a number, that
 * coordinate of it). Clamping again leaves the point where it is.
 * @param {unknown} p @param {number} reach @param {number[]} fallback @returns {number[]}
 */
export function clampPoint(p, reach, fallback) {
  if (!Array.isArray(p) || p.length !== 2) return fallback;
  const x = [clampNumber(p[0], -1e9, 1e9, fallback[0]), clampNumber(p[1], -1e9, 1e9, fallback[1])];
  const r = Math.hypot(...x);
  // a point already pulled in to the circle may sit a rounding error outside it: leave it
  return r > reach * (1 + 1e-12) ? x.map((c) => (c * reach) / r) : x;
}
