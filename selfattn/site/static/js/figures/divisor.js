// F16: choose the divisor (none, √d, d) and drag the width: with √d the mix holds at
// every width, with d it drifts toward a uniform average. The experiment is anchored at the
// toy: width 2 is its raw row `ate`, width d that row·√(d/2), so with √d every width shows
// the toy's own row (F11's ate row) and the two figures agree with nothing to explain.

import { widthMix } from "../attention.js";
import { figure } from "../figure.js";
import { t } from "../i18n.js";
import { choices } from "../kit/controls.js";
import { weight } from "../kit/format.js";
import { stage } from "../kit/stage.js";
import { baseScores, clampWidth, mixBars, topWeight, widthSlider } from "../width.js";

/** @type {("none"|"sqrt"|"d")[]} */
const DIVISORS = ["none", "sqrt", "d"];

export default function (el, head) {
  const base = baseScores(head);
  const n = head.tokens.length;
  const { picture, controls, readouts } = stage(el);
  // on each bar, the outline of the share a plain average gives it: where d drifts to. A line
  // across the chart instead lifted every short bar's number over it, far from its bar
  const bars = mixBars(picture, head, {
    title: t({
      zh: `ate 这一行的权重；细框：平均分配 1/${n}`,
      en: `Row ate's weights; outlines: the even share 1/${n}`,
    }),
    outline: true,
  });
  const even = head.tokens.map(() => 1 / n);
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

  const fig = figure(el, {
    state: { width: 1, divisor: /** @type {"none"|"sqrt"|"d"} */ ("none") },
    clamp: (s) => ({ width: clampWidth(s.width), divisor: DIVISORS.includes(s.divisor) ? s.divisor : "none" }),
    discrete: ["divisor"],
    draw({ width: d, divisor: by }) {
      const w = widthMix(base, d, by),
        best = topWeight(w);
      width.show(d);
      divisor.show(by);
      bars.set(w, { win: best.index, ghost: even });
      out.show({
        gradient: weight(best.gradient, 3),
      });
    },
  });
}
