// The scaffold every figure shares: state, set(partial) and draw(), hung on the element.
// Input writes state; state draws. Redraws are batched to one per animation frame, and a
// change to one of the figure's `discrete` keys (a next row, a flip, a shuffle) eases the
// picture from the old drawing to the new one.

import { snapshot, ease, settle } from "./kit/motion.js";

/**
 * Make `el` a figure. `clamp` turns any partial state (from a control, a test or a URL)
 * into a valid one; `draw` paints everything from state.
 * @template S
 * @param {HTMLElement} el
 * @param {{state: S, clamp?: (s: S) => S, draw: (s: S) => void, discrete?: string[]}} spec
 * @returns {{state: S, set(partial: Partial<S>): void, redraw(): void}}
 */
export function figure(el, { state, clamp = (s) => s, draw, discrete = [] }) {
  let pending = false;
  let drawn = state;
  const api = {
    state: clamp({ ...state }),
    set(partial) {
      api.state = clamp({ ...api.state, ...partial });
      if (pending) return;
      pending = true;
      requestAnimationFrame(() => {
        pending = false;
        const jump = discrete.some((key) => JSON.stringify(api.state[key]) !== JSON.stringify(drawn[key]));
        const before = jump ? snapshot(el) : null;
        if (!jump) settle(el);
        draw(api.state);
        drawn = api.state;
        if (before) ease(el, before);
        el.dispatchEvent(new Event("input", { bubbles: true }));
      });
    },
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

/** A finite 2-D point clamped into a box, or the fallback. */
export function clampPoint(p, [x0, x1], [y0, y1], fallback) {
  if (!Array.isArray(p) || p.length !== 2) return fallback;
  return [clampNumber(p[0], x0, x1, fallback[0]), clampNumber(p[1], y0, y1, fallback[1])];
}

/** Create an HTML element with attributes and children. */
export function html(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "text") el.textContent = v;
    else el.setAttribute(k, String(v));
  }
  el.append(...children);
  return el;
}

/**
 * A labelled range input that writes through `onInput`. `show(v, text)` moves it and,
 * given `text`, prints that beside the label and as the value a screen reader hears.
 * @param {{label: string, min: number, max: number, step: number, onInput: (v: number) => void, name: string}} o
 */
export function slider({ label, min, max, step, onInput, name }) {
  const input = html("input", { type: "range", min, max, step, name });
  const value = html("span", { class: "value" });
  const wrap = html("label", { class: "control slider" }, html("span", {}, label + " ", value), input);
  input.addEventListener("input", () => onInput(Number(input.value)));
  return {
    el: wrap,
    input,
    show(v, text) {
      if (input.value !== String(v)) input.value = String(v);
      if (text !== undefined) {
        value.textContent = text;
        input.setAttribute("aria-valuetext", text);
      }
    },
  };
}

/** A read-out: a labelled number whose element carries data-readout. */
export function readout(name, label) {
  const value = html("output", { "data-readout": name });
  const el = html("div", { class: "readout" }, html("span", { class: "name", text: label }), value);
  return { el, show(text) { if (value.textContent !== text) value.textContent = text; } };
}

/** The page's language: "zh" or "en". */
export function language() {
  return document.documentElement.lang.startsWith("zh") ? "zh" : "en";
}

/** Pick a string for the page's language from {zh, en}. */
export function t(strings) {
  return strings[language()];
}
