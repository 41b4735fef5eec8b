// F11: pick a row; its scores go through exp, then each is divided by the row's total,
// and a dashed staircase stacks the weights, landing exactly on 1.

import { argmax, softmaxRow } from "../attention.js";
import { figure, t } from "../figure.js";
import { makeBars } from "../kit/bars.js";
import { choices, tokenIndex } from "../kit/controls.js";
import { fixed, weight } from "../kit/format.js";
import { stage } from "../kit/stage.js";

export default function (el, head) {
  const { tokens } = head,
    it = head.index("it");
  const { S } = head.run();
  const { picture, controls, readouts } = stage(el);
  // one scale for every row, so rows can be compared by eye; e⁰ = 1 is a score of zero
  const tallest = Math.ceil(Math.max(...S.flat().map(Math.exp)));
  const exps = makeBars(picture, {
    labels: tokens,
    domain: [0, tallest],
    ticks: [1, tallest],
    height: 190,
    name: "e",
    title: t({ zh: "eˢ：指数之后，全为正", en: "eˢ: after the exponential, all positive" }),
    label: t({ zh: "这一行分数的指数", en: "The exponentials of the row's scores" }),
  });
  const weights = makeBars(picture, {
    labels: tokens,
    domain: [0, 1],
    ticks: [0.5, 1],
    edge: true,
    height: 210,
    name: "w",
    title: t({ zh: "w = eˢ / Σeˢ；虚线阶梯把它们逐个累加", en: "w = eˢ / Σeˢ, stacked by the dashed staircase" }),
    label: t({ zh: "这一行的权重和累加的阶梯", en: "The row's weights and their running total" }),
    format: (w) => weight(w, 2),
  });
  const pick = choices(controls, {
    legend: t({ zh: "选一行（提问的 token）", en: "Pick a row (the asking token)" }),
    name: "F11-row",
    options: tokens.map((token, i) => ({ value: String(i), label: token })),
    onInput: (row) => fig.set({ row: Number(row) }),
  });
  const out = readouts({ sum: "Σw", "sum-exp": "Σeˢ" }, { key: "sum" });

  const fig = figure(el, {
    state: { row: it },
    // a row by index or by its token's name (#F11:row=it); past the end, the last row
    clamp: (s) => ({ row: Number(s.row) >= tokens.length ? tokens.length - 1 : tokenIndex(tokens, s.row, it) }),
    discrete: ["row"],
    draw({ row }) {
      const e = S[row].map(Math.exp),
        w = softmaxRow(S[row]),
        top = argmax(w);
      pick.show(String(row));
      exps.set(e, { win: top });
      weights.set(w, { win: top, staircase: true });
      out.show({
        sum: fixed(
          w.reduce((a, b) => a + b, 0),
          3,
        ),
        "sum-exp": fixed(e.reduce((a, b) => a + b, 0)),
      });
    },
  });
}
