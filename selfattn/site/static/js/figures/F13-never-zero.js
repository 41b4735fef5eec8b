// F13: push cat's score in row it down to −30; its weight, on a log axis and in
// scientific notation, keeps shrinking and never reaches zero.

import { figure, readout, html, t, clampNumber } from "../figure.js";
import { attention, softmaxRow } from "../attention.js";
import { svg } from "../kit/plane.js";
import { valueHandle } from "../kit/handles.js";
import { fixed, scientific } from "../kit/format.js";

const LOWEST = -30, HIGHEST = 3;
const SMALLEST_LOG = -16; // the weight axis runs from 10⁻¹⁶ to 10⁰
const WIDTH = 360, HEIGHT = 214, LEFT = 22, RIGHT = 338, SCORE_Y = 58, WEIGHT_Y = 158;

/** 10⁻⁸ written as the page writes powers. */
function power(k) {
  return k === 0 ? "1" : scientific(10 ** k, 1).replace(/^1 × /, "");
}

export default function (el, head) {
  const it = head.tokens.indexOf("it"), cat = head.tokens.indexOf("cat");
  const row = attention(head.X, head.W_Q, head.W_K, head.W_V).S[it];
  const xScore = (s) => LEFT + ((s - LOWEST) / (HIGHEST - LOWEST)) * (RIGHT - LEFT);
  const xWeight = (w) => LEFT + ((Math.log10(w) - SMALLEST_LOG) / -SMALLEST_LOG) * (RIGHT - LEFT);
  const root = svg("svg", {
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: "chart floor", role: "img",
    "aria-label": t({ zh: "cat 的分数和它的权重（对数轴）", en: "cat's score and its weight on a log axis" }),
  });
  // first, so the titles and ticks are painted over it
  const link = svg("line", { class: "link", y1: SCORE_Y, y2: WEIGHT_Y }, root);
  svg("text", { class: "chart-title", x: 4, y: 16 }, root).textContent = t({ zh: "cat 的分数 s（灰点：另外五个）", en: "cat's score s (grey: the other five)" });
  svg("text", { class: "chart-title", x: 4, y: 112 }, root).textContent = t({ zh: "cat 的权重 w（对数轴）", en: "cat's weight w (log axis)" });
  for (const y of [SCORE_Y, WEIGHT_Y]) svg("line", { class: "baseline", x1: LEFT, x2: RIGHT, y1: y, y2: y }, root);
  for (const s of [-30, -20, -10, 0]) {
    svg("line", { class: "tick-mark", x1: xScore(s), x2: xScore(s), y1: SCORE_Y - 4, y2: SCORE_Y + 4 }, root);
    svg("text", { class: "tick", x: xScore(s), y: SCORE_Y + 20 }, root).textContent = fixed(s, 0);
  }
  for (let k = SMALLEST_LOG; k <= 0; k += 4) {
    const x = xWeight(10 ** k);
    svg("line", { class: "tick-mark", x1: x, x2: x, y1: WEIGHT_Y - 4, y2: WEIGHT_Y + 4 }, root);
    svg("text", { class: "tick", x, y: WEIGHT_Y + 22 }, root).textContent = power(k);
  }
  svg("text", { class: "zero-note", x: LEFT, y: HEIGHT - 6 }, root).textContent = t({ zh: "← 0 不在这条轴上：它在无穷远的左边", en: "← 0 is not on this axis: it lies infinitely far left" });
  const others = row.map((_, j) => j).filter((j) => j !== cat);
  for (const j of others) svg("circle", { class: "other", r: 3.5, cx: xScore(row[j]), cy: SCORE_Y }, root);
  const otherWeights = others.map(() => svg("circle", { class: "other", r: 3.5, cy: WEIGHT_Y }, root));
  const marker = svg("circle", { class: "weight-marker", r: 7, cy: WEIGHT_Y }, root);
  const knob = valueHandle(root, {
    label: t({ zh: "cat 的分数", en: "cat's score" }), min: LOWEST, max: HIGHEST, step: 0.5, page: 5,
    orientation: "horizontal",
    toPoint: (s) => [xScore(s), SCORE_Y],
    fromPoint: ([x]) => LOWEST + ((x - LEFT) / (RIGHT - LEFT)) * (HIGHEST - LOWEST),
    onMove: (score) => fig.set({ score }),
    get: () => fig.state.score,
  });
  const score = readout("score", t({ zh: "cat 的分数", en: "cat's score" }));
  const weightOfCat = readout("w.cat", t({ zh: "cat 的权重", en: "cat's weight" }));
  const sum = readout("sum", "Σw");
  weightOfCat.el.querySelector("output").dataset.key = ""; // the one read-out a screen reader announces
  el.querySelector(".stage").append(
    root,
    html("div", { class: "panel" }, html("div", { class: "readouts single" }, score.el, weightOfCat.el, sum.el)),
  );

  const fig = figure(el, {
    state: { score: row[cat] },
    clamp: (s) => ({ score: clampNumber(s.score, LOWEST, HIGHEST, row[cat]) }),
    draw({ score: s }) {
      const w = softmaxRow(row.map((v, j) => (j === cat ? s : v)));
      knob.place(s, `${fixed(s)}; w = ${scientific(w[cat])}`);
      link.setAttribute("x1", xScore(s));
      link.setAttribute("x2", xWeight(w[cat]));
      marker.setAttribute("cx", xWeight(w[cat]));
      otherWeights.forEach((dot, k) => dot.setAttribute("cx", xWeight(w[others[k]])));
      score.show(fixed(s));
      weightOfCat.show(scientific(w[cat]));
      sum.show(fixed(w.reduce((a, b) => a + b, 0), 3));
    },
  });
}
