// F03: step through the six tokens; one query, all six keys, the query's shadow on each.

import { figure, readout, html, t } from "../figure.js";
import { makePlane, arrow, shadow, untangle } from "../kit/plane.js";
import { project, dot, argmax } from "../attention.js";
import { fixed } from "../kit/format.js";
import { tokenStepper, tokenState } from "../tokens.js";

export default function (el, head) {
  const { tokens } = head;
  const Q = project(head.X, head.W_Q), K = project(head.X, head.W_K);
  const plane = makePlane({ x: [-2.2, 1.2], y: [-1.8, 1.8], unit: 100, grid: 0.5, label: t({ zh: "一个查询和六个键", en: "One query and six keys" }) });
  const shadows = tokens.map(() => shadow(plane));
  const keys = tokens.map((name) => arrow(plane, { cls: "key", label: name }));
  const query = arrow(plane, { cls: "query", label: "q" });
  const stepper = tokenStepper({ tokens, label: t({ zh: "查询的 token", en: "Query token" }), onPick: (token) => fig.set({ token }) });
  const scores = tokens.map((name) => readout(`score.${name}`, `q · k_${name}`));
  const winner = readout("winner", t({ zh: "得分最高", en: "Winner" }));
  el.querySelector(".stage").append(
    plane.root,
    html("div", { class: "panel" }, stepper.el, html("div", { class: "readouts" }, ...scores.map((r) => r.el), winner.el)),
  );

  const fig = figure(el, {
    ...tokenState(tokens, "it"),
    draw({ token }) {
      stepper.show(token);
      const q = Q[token];
      const row = K.map((k) => dot(q, k));
      const best = argmax(row);
      query.set(q, [0, 0], `q · ${tokens[token]}`);
      K.forEach((k, j) => {
        shadows[j].set(q, k);
        shadows[j].along.classList.toggle("faint", j !== best); // the winner's shadow stands out
        keys[j].set(k);
        scores[j].show(fixed(row[j]));
        scores[j].el.classList.toggle("win", j === best);
      });
      plane.layers.shapes.querySelectorAll(".arrow.key").forEach((g, j) => g.classList.toggle("winner", j === best));
      winner.show(tokens[best]);
      untangle(plane);
    },
  });
}
