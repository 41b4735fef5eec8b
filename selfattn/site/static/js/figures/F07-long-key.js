// F07: stretch and's key; it wins on length alone, without ever turning.

import { figure, readout, slider, html, t, clampNumber } from "../figure.js";
import { makeRowChart } from "../rowchart.js";
import { project, rawScores, argmax } from "../attention.js";
import { fixed } from "../numbers.js";

const MAX = 5;

export default function (el, head) {
  const { tokens } = head;
  const it = tokens.indexOf("it"), and = tokens.indexOf("and"), cat = tokens.indexOf("cat");
  const row = rawScores(project(head.X, head.WQ), project(head.X, head.WK))[it];
  const bars = makeRowChart({
    labels: tokens, min: -0.5, max: Math.max(...row, row[and] * MAX) + 0.3,
    label: t({ zh: "it 那一行的原始分数", en: "Raw scores of row it" }),
  });
  const control = slider({
    label: t({ zh: "and 的键拉长到", en: "and's key stretched" }), min: 1, max: MAX, step: 0.1, name: "stretch",
    onInput: (f) => fig.set({ f }),
  });
  const out = {
    and: readout("and", "q_it · k_and"),
    cat: readout("cat", "q_it · k_cat"),
    winner: readout("winner", t({ zh: "得分最高", en: "Winner" })),
  };
  el.querySelector(".stage").append(
    bars.root,
    html("div", { class: "panel" }, control.el, html("div", { class: "readouts" }, ...Object.values(out).map((r) => r.el))),
  );

  const fig = figure(el, {
    state: { f: 1 },
    // the slider's own grid: tenths, so 4.4 means exactly the step the prose names
    clamp: (s) => ({ f: Math.round(clampNumber(s.f, 1, MAX, 1) * 10) / 10 }),
    draw({ f }) {
      control.show(f, `${fixed(f, 1)}×`);
      const scores = row.map((r, j) => (j === and ? r * f : r));
      const best = argmax(scores);
      bars.set(scores, { win: best, reference: row[cat], referenceLabel: "cat" });
      out.and.show(fixed(scores[and]));
      out.cat.show(fixed(scores[cat]));
      out.winner.show(tokens[best]);
    },
  });
}
