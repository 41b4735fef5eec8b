// F11: pick a row; its scores go through exp, and the cyan staircase stacks the weights to 1.

import { figure, readout, html, t, clampNumber } from "../figure.js";
import { attention, softmaxRow } from "../attention.js";
import { makeRowChart } from "../rowchart.js";
import { radios } from "../controls.js";
import { fixed, weight } from "../kit/format.js";

export default function (el, head) {
  const n = head.tokens.length;
  const { S } = attention(head.X, head.W_Q, head.W_K, head.W_V);
  // one scale for every row, so rows can be compared by eye
  const largest = Math.max(...S.flat().map(Math.exp));
  const exps = makeRowChart({
    labels: head.tokens, min: 0, max: Math.ceil(largest), height: 220, ticks: [1, Math.ceil(largest)], // e⁰ = 1: a score of zero
    title: t({ zh: "eˢ：指数之后", en: "eˢ: after the exponential" }),
    label: t({ zh: "这一行分数的指数", en: "the exponentials of the row's scores" }),
  });
  const weights = makeRowChart({
    labels: head.tokens, min: 0, max: 1, ticks: [0.5, 1], edge: true, height: 220,
    title: t({ zh: "w = eˢ / Σeˢ，青色阶梯逐个累加", en: "w = eˢ / Σeˢ, stacked by the cyan staircase" }),
    label: t({ zh: "这一行的权重和累加的阶梯", en: "the row's weights and their running total" }),
    format: (w) => weight(w, 2),
  });
  const pick = radios({
    legend: t({ zh: "选一行（提问的 token）", en: "Pick a row (the asking token)" }), name: "F11-row",
    options: head.tokens.map((token, i) => ({ value: String(i), label: token })),
    onInput: (row) => fig.set({ row: Number(row) }),
  });
  const total = readout("sum-exp", "Σ eˢ");
  const each = head.tokens.map((token) => readout(`w.${token}`, `w(${token})`));
  const sum = readout("sum", "Σw");
  el.querySelector(".stage").append(
    html("div", { class: "controls wide" }, pick.el),
    exps.root,
    weights.root,
    html("div", { class: "panel wide" }, html("div", { class: "readouts" }, total.el, ...each.map((r) => r.el), sum.el)),
  );

  const fig = figure(el, {
    state: { row: head.tokens.indexOf("it") },
    // a row by index or by its token's name (#F11:row=it)
    clamp: (s) => ({ row: Math.round(clampNumber(head.tokens.includes(s.row) ? head.tokens.indexOf(s.row) : s.row, 0, n - 1, head.tokens.indexOf("it"))) }),
    draw({ row }) {
      pick.show(String(row));
      const e = S[row].map(Math.exp);
      const w = softmaxRow(S[row]);
      const top = w.indexOf(Math.max(...w));
      exps.set(e, { win: top });
      weights.set(w, { win: top, staircase: true });
      total.show(fixed(e.reduce((a, b) => a + b, 0)));
      w.forEach((x, i) => each[i].show(weight(x, 2)));
      sum.show(fixed(w.reduce((a, b) => a + b, 0), 3));
    },
  });
}
