// F19: mask by adding −∞ or, the bug, by multiplying by 0. A zeroed score is not a
// missing one: exp(0) = 1, so ran keeps a share of the row of it that it should never have,
// drawn in red where the mask should have left an empty dashed box.

import { assertion } from "../assertion.js";
import { figure, t } from "../figure.js";
import { makeBars } from "../kit/bars.js";
import { toggle } from "../kit/controls.js";
import { fixed, weight } from "../kit/format.js";
import { stage } from "../kit/stage.js";

/** Exactly zero prints as 0, so "0" and "0.000" never look alike. */
const exact = (w) => (w === 0 ? "0" : weight(w, 3));

export default function (el, head) {
  const { tokens } = head;
  const it = head.index("it"),
    ran = head.index("ran");
  const runs = { causal: head.run("causal"), multiply: head.run("multiply") };
  const top = Math.max(...runs.causal.W[it], ...runs.multiply.W[it]);
  const { picture, controls, side, readouts } = stage(el);
  const bars = makeBars(picture, {
    labels: tokens,
    domain: [0, top * 1.12],
    name: "bar",
    height: 200,
    format: exact,
    label: t({
      zh: "it 这一行的权重；被遮住的键是虚线小框，漏过去的权重是红色斜线",
      en: "The weights in the row of it; a masked key is a small dashed box, weight leaking onto it is red hatching",
    }),
  });
  const mode = toggle(controls, {
    label: t({ zh: "用 × 0 代替 + (−∞) 来掩码", en: "Mask by × 0 instead of + (−∞)" }),
    name: "multiply",
    off: "+ (−∞)",
    on: "× 0",
    onChange: (multiply) => fig.set({ multiply }),
  });
  const out = readouts(
    {
      "w.ran": "w(it, ran)",
      "score.ran": "score(it, ran)",
      "masked.all": t({ zh: "全图泄漏", en: "leaked, all rows" }),
      sum: t({ zh: "这一行的和", en: "row sum" }),
    },
    { key: "w.ran" },
  );
  const check = assertion(side, { code: "assert (weight[future] == 0).all()", name: "check" });

  const fig = figure(el, {
    state: { multiply: false },
    clamp: (s) => ({ multiply: s.multiply === true }),
    discrete: ["multiply"],
    draw({ multiply }) {
      const { S, W } = runs[multiply ? "multiply" : "causal"];
      mode.show(multiply);
      const future = tokens.map((_, j) => j > it);
      bars.set(W[it], {
        masked: future.map((f) => (f ? "0" : null)),
        leak: future.map((f) => f && multiply),
      });
      let leaked = 0;
      W.forEach((row, i) => {
        for (let j = i + 1; j < row.length; j += 1) leaked += row[j];
      });
      out.show({
        "w.ran": exact(W[it][ran]),
        "score.ran": fixed(S[it][ran]),
        "masked.all": exact(leaked),
        sum: fixed(
          W[it].reduce((a, b) => a + b, 0),
          3,
        ),
      });
      check.show(leaked === 0, exact(leaked));
    },
  });
}
