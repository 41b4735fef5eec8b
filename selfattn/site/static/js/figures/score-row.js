// F06: walk the query along the sentence; its six raw scores stand as one row of bars, on
// one scale for every row, so a row can be compared with the next.

import { argmax } from "../attention.js";
import { figure } from "../figure.js";
import { t } from "../i18n.js";
import { makeBars } from "../kit/bars.js";
import { ticks } from "../kit/chart.js";
import { stepper, tokenIndex } from "../kit/controls.js";
import { setSvg } from "../kit/notation.js";
import { stage } from "../kit/stage.js";

export default function (el, head) {
  const { tokens } = head;
  const { R } = head.run();
  const first = head.index("it");
  const all = R.flat();
  // headroom over the tallest, so its number clears the title's subscript (q_cat)
  const domain = [Math.min(0, ...all), Math.max(0, ...all) * 1.06];
  const { picture, controls, readouts } = stage(el);
  const bars = makeBars(picture, {
    labels: [...tokens],
    domain,
    height: 220,
    name: "score",
    ticks: ticks(domain[0], domain[1], 4),
    title: " ", // written per row: the query the stepper walks
    label: t({ zh: "一行原始分数", en: "One row of raw scores" }),
  });
  // the chart is headed by the query it shows, so the row reads as q_it·k without the stepper
  const heading = /** @type {SVGTextElement} */ (bars.root.querySelector(".chart-title"));
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
      setSvg(
        heading,
        t({ zh: `q_${tokens[token]}·k：对每个键的原始分数`, en: `q_${tokens[token]}·k: the raw score on each key` }),
      );
      bars.set(row, { win: best });
      out.show({ top: tokens[best] });
    },
  });
}
