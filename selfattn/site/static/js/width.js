// The width experiment that F14–F16 share: a width slider on a log axis (1 … 256) and
// the mix of row `ate` as the head widens, divided by nothing, √d or d.

import { slider, html, clampNumber, t } from "./figure.js";
import { project, rawScores } from "./attention.js";
import { makeRowChart } from "./rowchart.js";
import { grouped, weight } from "./kit/format.js";

export const LARGEST_LOG = 8; // widths 2⁰ … 2⁸
const LABELLED = [0, 2, 4, 6, 8]; // 1, 4, 16, 64, 256: each four times the last

/** Any input → a width the slider can show: a power of two in 1 … 256 (1 if unreadable). */
export function clampWidth(width) {
  return 2 ** Math.round(Math.log2(clampNumber(width, 1, 2 ** LARGEST_LOG, 1)));
}

/**
 * A range input over log₂(width), with the labelled widths underneath.
 * @param {(width: number) => void} onInput
 */
export function widthSlider(onInput) {
  const control = slider({
    label: t({ zh: "宽度 d", en: "Width d" }), min: 0, max: LARGEST_LOG, step: 1, name: "width",
    onInput: (k) => onInput(2 ** k),
  });
  const ticks = html(
    "div",
    { class: "log-ticks", "aria-hidden": "true" },
    ...Array.from({ length: LARGEST_LOG + 1 }, (_, k) => {
      const tick = html("span", { class: LABELLED.includes(k) ? "labelled" : "" }, LABELLED.includes(k) ? grouped(2 ** k) : "");
      tick.style.setProperty("--at", String(k / LARGEST_LOG));
      return tick;
    }),
  );
  return {
    el: html("div", { class: "width-control" }, control.el, ticks),
    input: control.input,
    /** @param {number} width */
    show(width) {
      control.show(Math.log2(width), grouped(width));
    },
  };
}

/** Raw row `ate`: the scores at width 1, which grow as √width. */
export function baseScores(head) {
  const Q = project(head.X, head.W_Q), K = project(head.X, head.W_K);
  return rawScores(Q, K)[head.tokens.indexOf("ate")];
}

/**
 * The largest weight, where it sits, and the gradient w(1 − w) through it, with 1 − w
 * summed from the other weights so it keeps its digits when w is within 10⁻⁹ of 1.
 * @param {number[]} weights
 */
export function topWeight(weights) {
  const index = weights.reduce((best, w, i) => (w > weights[best] ? i : best), 0);
  const rest = weights.reduce((sum, w, i) => (i === index ? sum : sum + w), 0);
  return { index, top: weights[index], gradient: weights[index] * rest };
}

/** Six weight bars for row `ate`'s mix, labelled by key. */
export function mixChart(head, title) {
  return makeRowChart({
    labels: head.tokens, min: 0, max: 1, ticks: [0.5, 1], title, height: 210,
    label: t({ zh: "ate 这一行的权重", en: "the weights of row ate" }),
    format: (w) => (w >= 0.0005 ? weight(w, 3) : "<0.001"),
  });
}
