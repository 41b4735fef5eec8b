// F06: walk the query along the sentence; its six raw scores stand as one row of bars, on
// one scale for every row, so a row can be compared with the next.

import { argmax } from "../attention.js";
import { figure } from "../figure.js";
import { t } from "../i18n.js";
import { makeBars } from "../kit/bars.js";
import { ticks } from "../kit/chart.js";
import { stepper, tokenIndex } from "../kit/controls.js";
import { stage } from "../kit/stage.js";

export default function (el, head) {
  const { tokens } = head;
  const { R } = head.run();
  const first = head.index("it");
  const all = R.flat();
  const domain = [Math.min(0, ...all), Math.max(0, ...all)];
  const { picture, controls, readouts } = stage(el);
  const bars = makeBars(picture, {
    labels: [...tokens],
    domain,
    height: 220,
    name: "score",
    ticks: ticks(domain[0], domain[1], 4),
    title: t({ zh: "查询对六个键的原始分数 q·k", en: "The query's raw score q·k on each key" }),
    label: t({ zh: "一行原始分数", en: "One row of raw scores" }),
  });
  const step = stepper(controls, {
    label: t({ zh: "查询的 token", en: "Query token" }),
    items: [...tokens],
    onPick: (token) => fig.set({ token }),
  });
  // cat's score, which the prose follows down the rows, is its bar's label; the line says who wins
  const out = readouts({ top: t({ zh: "得分最高的键", en: "highest-scoring key" }) }, { key: "top" });

  const fig = figure(el, {
    state: { token: first },
    clamp: (s) => ({ token: tokenIndex(tokens, s.token, first) }),
    discrete: ["token"],
    draw({ token }) {
      const row = R[token],
        best = argmax(row);
      step.show(token);
      bars.set(row, { win: best });
      out.show({ top: tokens[best] });
    },
  });
}
