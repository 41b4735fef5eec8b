// F16: choose the divisor (none, √d, d) and drag the width: with √d the mix holds at
// every width, with d it drifts toward a uniform average. The experiment's head of width d
// scores √d times the toy's raw row `ate`, so our toy head (d = 2, raw ÷ √2) is not its
// width 2: the note says where the toy sits, so F11 and this figure never seem to disagree.

import { widthMix } from "../attention.js";
import { figure } from "../figure.js";
import { t } from "../i18n.js";
import { choices } from "../kit/controls.js";
import { fixed, weight } from "../kit/format.js";
import { stage } from "../kit/stage.js";
import { baseScores, clampWidth, mixBars, topWeight, widthSlider } from "../width.js";

/** @type {("none"|"sqrt"|"d")[]} */
const DIVISORS = ["none", "sqrt", "d"];

export default function (el, head) {
  const base = baseScores(head);
  const n = head.tokens.length;
  const { picture, controls, readouts, note } = stage(el);
  // across the bars, the weight a plain average gives each: where d drifts to
  const bars = mixBars(picture, head, {
    title: t({ zh: `ate 这一行的权重；横线：平均 1/${n}`, en: `Row ate's weights; the line: the average 1/${n}` }),
    reference: true,
  });
  const divisor = choices(controls, {
    legend: t({ zh: "分数除以", en: "Divide the scores by" }),
    name: "F16-divisor",
    options: [
      { value: "none", label: t({ zh: "不除", en: "nothing" }) },
      { value: "sqrt", label: "√d" },
      { value: "d", label: "d" },
    ],
    onInput: (value) => fig.set({ divisor: /** @type {"none"|"sqrt"|"d"} */ (value) }),
  });
  const width = widthSlider(controls, (d) => fig.set({ width: d }));
  // the top weight is its bar's label
  const out = readouts({ gradient: "w(1−w)" }, { key: "gradient" });

  const toyTop = fixed(Math.max(...head.run().W[head.index("ate")]), 2);
  note(
    t({
      // what width 1 and width d mean is the caption's; the note adds only where the toy head stands
      zh: `玩具头本身（d = 2，除以 √2，见 F11）对应这里宽度 2、除以 d：最大权重 ${toyTop}。`,
      en: `Our toy head itself (d = 2, divided by √2, F11) sits at width 2 with the divisor d here: top weight ${toyTop}.`,
    }),
  );

  const fig = figure(el, {
    state: { width: 1, divisor: /** @type {"none"|"sqrt"|"d"} */ ("none") },
    clamp: (s) => ({ width: clampWidth(s.width), divisor: DIVISORS.includes(s.divisor) ? s.divisor : "none" }),
    discrete: ["divisor"],
    draw({ width: d, divisor: by }) {
      const w = widthMix(base, d, by),
        best = topWeight(w);
      width.show(d);
      divisor.show(by);
      bars.set(w, { win: best.index, reference: { value: 1 / n, label: `1/${n}` } });
      out.show({
        gradient: weight(best.gradient, 3),
      });
    },
  });
}
