// F18: move the asking position along the sentence. Softmax runs over the keys up to it
// only, so the row still sums to one; the outlines behind show the row without the mask.

import { figure, readout, slider, t, html, clampNumber } from "../figure.js";
import { attention } from "../attention.js";
import { fixed, weight } from "../kit/format.js";
import { makeWeightRow } from "../weight-row.js";

/** A weight as the figure prints it: an exact zero says so, anything else to 2 decimals. */
const printWeight = (w) => (w === 0 ? "0" : weight(w, 2));

export default function (el, head) {
  const { tokens } = head;
  const masked = attention(head.X, head.W_Q, head.W_K, head.W_V, "causal").W;
  const open = attention(head.X, head.W_Q, head.W_K, head.W_V, "none").W;
  const bars = makeWeightRow({
    tokens, name: "bar",
    label: t({ zh: "提问位置那一行的因果权重，轮廓是不加掩码时的权重", en: "The causal weights of the asking row; outlines show the row without the mask" }),
  });
  const control = slider({
    label: t({ zh: "提问的位置", en: "Asking position" }), min: 0, max: tokens.length - 1, step: 1, name: "position",
    onInput: (position) => fig.set({ position }),
  });
  const query = readout("query", t({ zh: "提问的词", en: "query" }));
  const candidates = readout("candidates", t({ zh: "可看的词", en: "keys seen" }));
  const total = readout("sum", t({ zh: "这一行的和", en: "row sum" }));
  const top = readout("top", t({ zh: "最大的权重", en: "largest weight" }));
  top.el.querySelector("output").dataset.key = ""; // the one read-out a screen reader hears change
  const weights = tokens.map((token) => readout(`w.${token}`, `w(${token})`));
  el.querySelector(".stage").append(
    bars.root,
    html("div", { class: "panel" },
      control.el,
      html("div", { class: "readouts wide" }, query.el, candidates.el, total.el, top.el),
      html("div", { class: "readouts" }, ...weights.map((r) => r.el)),
      html("p", { class: "figure-note" }, t({
        zh: "实心：加了掩码的权重；轮廓：不加掩码时的权重；虚线格：被遮住的键。",
        en: "Filled: weights with the mask; outlines: without it; dashed slots: masked keys.",
      })),
    ),
  );

  const fig = figure(el, {
    state: { position: 4 },
    clamp: (s) => ({ position: Math.round(clampNumber(s.position, 0, tokens.length - 1, 4)) }),
    draw({ position }) {
      const row = masked[position];
      control.show(position, `${position} · ${tokens[position]}`);
      const by = (values) => Object.fromEntries(tokens.map((token, j) => [token, values[j]]));
      const winner = row.indexOf(Math.max(...row));
      bars.set({
        weights: by(row),
        text: by(row.map(printWeight)),
        masked: by(tokens.map((_, j) => j > position)),
        ghost: by(open[position]),
        win: tokens[winner],
      });
      query.show(tokens[position]);
      candidates.show(String(position + 1));
      total.show(fixed(row.reduce((a, b) => a + b, 0)));
      top.show(`${tokens[winner]} ${fixed(row[winner])}`);
      weights.forEach((r, j) => r.show(printWeight(row[j])));
    },
  });
}
