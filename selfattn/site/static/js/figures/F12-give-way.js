// F12: drag cat's score in row it; the other five weights give way and Σw stays 1.

import { figure, readout, html, t, clampNumber } from "../figure.js";
import { attention, softmaxRow } from "../attention.js";
import { makeRowChart } from "../rowchart.js";
import { valueHandle } from "../kit/handles.js";
import { fixed, weight } from "../kit/format.js";

const LOWEST = -4, HIGHEST = 8;

export default function (el, head) {
  const it = head.tokens.indexOf("it"), cat = head.tokens.indexOf("cat");
  const row = attention(head.X, head.W_Q, head.W_K, head.W_V).S[it];
  const scores = makeRowChart({
    labels: head.tokens, min: LOWEST, max: HIGHEST, ticks: [-4, 0, 4, 8], height: 250,
    title: t({ zh: "it 这一行的分数 s（上下拖 cat 的）", en: "scores s in row it (drag cat's ↕)" }),
    label: t({ zh: "it 这一行的分数，cat 的可以拖动", en: "the scores of row it; cat's can be dragged" }),
  });
  const weights = makeRowChart({
    labels: head.tokens, min: 0, max: 1, ticks: [0.5, 1], height: 250,
    title: t({ zh: "权重 w", en: "weights w" }),
    label: t({ zh: "it 这一行的权重", en: "the weights of row it" }),
    format: (w) => (w >= 0.0005 ? weight(w, 3) : "<0.001"),
  });
  const knob = valueHandle(scores.root, {
    label: t({ zh: "cat 的分数", en: "cat's score" }), min: LOWEST, max: HIGHEST, step: 0.1, page: 1,
    toPoint: (s) => [scores.x(cat), scores.y(s)],
    fromPoint: ([, y]) => scores.valueAt(y),
    onMove: (score) => fig.set({ score }),
    get: () => fig.state.score,
  });
  const score = readout("score", t({ zh: "cat 的分数", en: "cat's score" }));
  const each = head.tokens.map((token) => readout(`w.${token}`, `w(${token})`));
  const sum = readout("sum", "Σw");
  each[cat].el.querySelector("output").dataset.key = ""; // the one read-out a screen reader announces
  el.querySelector(".stage").append(
    scores.root,
    weights.root,
    html("div", { class: "panel wide" }, html("div", { class: "readouts" }, score.el, ...each.map((r) => r.el), sum.el)),
  );

  const fig = figure(el, {
    state: { score: row[cat] },
    clamp: (s) => ({ score: clampNumber(s.score, LOWEST, HIGHEST, row[cat]) }),
    draw({ score: s }) {
      const values = row.map((v, j) => (j === cat ? s : v));
      const w = softmaxRow(values);
      scores.set(values, { win: cat, lift: cat });
      weights.set(w, { win: cat });
      knob.place(s, fixed(s));
      score.show(fixed(s));
      w.forEach((x, i) => each[i].show(weight(x, 3)));
      sum.show(fixed(w.reduce((a, b) => a + b, 0), 3));
    },
  });
}
