// F19: mask by adding −∞ or, the bug, by multiplying by 0. A zeroed score is not a
// missing one: exp(0) = 1, so ran keeps a share of it's row that it should never have.

import { figure, readout, t, html } from "../figure.js";
import { attention } from "../attention.js";
import { fixed, weight } from "../kit/format.js";
import { makeWeightRow } from "../weight-row.js";
import { toggle } from "../switch.js";
import { assertion } from "../assertion.js";

/** Exactly zero prints as 0, so "0" and "0.000" never look alike. */
const exact = (w, decimals) => (w === 0 ? "0" : weight(w, decimals));

export default function (el, head) {
  const { tokens } = head;
  const it = tokens.indexOf("it"), ran = tokens.indexOf("ran"), cat = tokens.indexOf("cat");
  const runs = {
    causal: attention(head.X, head.W_Q, head.W_K, head.W_V, "causal"),
    multiply: attention(head.X, head.W_Q, head.W_K, head.W_V, "multiply"),
  };
  const bars = makeWeightRow({
    tokens, name: "bar", max: 0.5,
    label: t({ zh: "it 这一行的权重；虚线格是被遮住的键", en: "The weights of it's row; the dashed slot is the masked key" }),
  });
  const control = toggle({
    label: t({ zh: "用 × 0 代替 + (−∞) 来掩码", en: "Mask by × 0 instead of + (−∞)" }), name: "multiply",
    off: "+ (−∞)", on: "× 0",
    onChange: (multiply) => fig.set({ multiply }),
  });
  const score = readout("score.ran", t({ zh: "ran 的分数", en: "score(ran)" }));
  const leak = readout("w.ran", "w(ran)");
  leak.el.querySelector("output").dataset.key = ""; // the one read-out a screen reader hears change
  const catWeight = readout("w.cat", "w(cat)");
  const total = readout("sum", t({ zh: "这一行的和", en: "row sum" }));
  const everywhere = readout("masked.all", t({ zh: "整张图里被遮住的权重", en: "masked weight, all rows" }));
  const check = assertion({ code: "assert (weight[future] == 0).all()", name: "check" });
  el.querySelector(".stage").append(
    bars.root,
    html("div", { class: "panel" },
      control.el,
      html("div", { class: "readouts wide" }, score.el, leak.el, catWeight.el, total.el, everywhere.el),
      check.el,
    ),
  );

  const fig = figure(el, {
    state: { multiply: false },
    clamp: (s) => ({ multiply: s.multiply === true }),
    draw({ multiply }) {
      const { S, W } = runs[multiply ? "multiply" : "causal"];
      const by = (values) => Object.fromEntries(tokens.map((token, j) => [token, values[j]]));
      control.show(multiply);
      el.classList.toggle("leaking", multiply);
      bars.set({
        weights: by(W[it]),
        text: by(W[it].map((w) => exact(w, 3))),
        masked: by(tokens.map((_, j) => j > it)),
        sub: by(S[it].map((s) => fixed(s))),
      });
      let future = 0;
      W.forEach((row, i) => row.forEach((w, j) => { if (j > i) future += w; }));
      score.show(fixed(S[it][ran]));
      leak.show(exact(W[it][ran], 3));
      catWeight.show(fixed(W[it][cat]));
      total.show(fixed(W[it].reduce((a, b) => a + b, 0), 3));
      everywhere.show(exact(future, 3));
      check.show(future === 0, exact(future, 3));
    },
  });
}
