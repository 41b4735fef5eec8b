// Choosing a token: previous / next buttons around the chosen token's name.

import { html, t } from "./figure.js";

/**
 * @param {{tokens: string[], onPick: (i: number) => void, label: string}} o
 * @returns {{el: HTMLElement, show(i: number): void}}
 */
export function tokenStepper({ tokens, onPick, label }) {
  let current = 0;
  const prev = html("button", { type: "button", "aria-label": t({ zh: "上一个 token", en: "Previous token" }), text: "◀" });
  const next = html("button", { type: "button", "aria-label": t({ zh: "下一个 token", en: "Next token" }), text: "▶" });
  const name = html("output", { class: "token-name", "aria-live": "polite", "data-readout": "token" });
  prev.addEventListener("click", () => onPick((current + tokens.length - 1) % tokens.length));
  next.addEventListener("click", () => onPick((current + 1) % tokens.length));
  const el = html("div", { class: "controls stepper", role: "group", "aria-label": label }, prev, name, next);
  return {
    el,
    show(i) {
      current = i;
      name.textContent = tokens[i];
    },
  };
}

/** A token index from anything: a name, a number, or garbage (which gives `fallback`). */
export function tokenIndex(tokens, value, fallback) {
  if (typeof value === "string" && tokens.includes(value)) return tokens.indexOf(value);
  const n = Number(value);
  return Number.isInteger(n) && n >= 0 && n < tokens.length ? n : fallback;
}

/**
 * The state of a figure that shows one token at a time, and its clamp, starting at
 * `start`: spread it into figure(el, {...tokenState(tokens, "it"), draw}).
 */
export function tokenState(tokens, start) {
  const first = tokens.indexOf(start);
  return { state: { token: first }, clamp: (s) => ({ token: tokenIndex(tokens, s.token, first) }) };
}
