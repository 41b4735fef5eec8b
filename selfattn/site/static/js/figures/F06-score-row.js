// F06: walk the query along the sentence; its six raw scores stand as one row of bars.

import { figure, readout, html, t } from "../figure.js";
import { makeRowChart } from "../rowchart.js";
import { project, rawScores, argmax } from "../attention.js";
import { fixed } from "../kit/format.js";
import { tokenStepper, tokenState } from "../tokens.js";

export default function (el, head) {
  const { tokens } = head;
  const R = rawScores(project(head.X, head.W_Q), project(head.X, head.W_K));
  const low = Math.min(...R.flat()), high = Math.max(...R.flat());
  const bars = makeRowChart({ labels: tokens, min: Math.min(-0.5, low - 0.3), max: high + 0.4, label: t({ zh: "一行原始分数", en: "One row of raw scores" }) });
  const stepper = tokenStepper({ tokens, label: t({ zh: "查询的 token", en: "Query token" }), onPick: (token) => fig.set({ token }) });
  const scores = tokens.map((name) => readout(`score.${name}`, name));
  el.querySelector(".stage").append(
    bars.root,
    html("div", { class: "panel" }, stepper.el, html("div", { class: "readouts" }, ...scores.map((r) => r.el))),
  );

  const fig = figure(el, {
    ...tokenState(tokens, "it"),
    draw({ token }) {
      stepper.show(token);
      const row = R[token];
      const best = argmax(row);
      bars.set(row, { win: best });
      row.forEach((r, j) => {
        scores[j].show(fixed(r));
        scores[j].el.classList.toggle("win", j === best);
      });
    },
  });
}
