// F16: choose the divisor (none, √d, d) and drag the width: with √d the mix holds at
// every width, with d it drifts toward a uniform average.

import { figure, readout, html, t } from "../figure.js";
import { widthMix } from "../attention.js";
import { radios } from "../controls.js";
import { widthSlider, clampWidth, baseScores, topWeight, mixChart } from "../width.js";
import { fixed, grouped, weight } from "../kit/format.js";

const DIVISORS = ["none", "sqrt", "d"];

export default function (el, head) {
  const base = baseScores(head);
  const n = head.tokens.length;
  const chart = mixChart(head, t({ zh: "ate 这一行的权重", en: "row ate's weights" }));
  const divisor = radios({
    legend: t({ zh: "分数除以", en: "Divide the scores by" }), name: "F16-divisor",
    options: [
      { value: "none", label: t({ zh: "不除", en: "nothing" }) },
      { value: "sqrt", label: "√d" },
      { value: "d", label: "d" },
    ],
    onInput: (value) => fig.set({ divisor: value }),
  });
  const control = widthSlider((width) => fig.set({ width }));
  const width = readout("width", t({ zh: "宽度 d", en: "width d" }));
  const dividedBy = readout("divisor", t({ zh: "除数", en: "divisor" }));
  const top = readout("top", t({ zh: "最大权重", en: "top weight" }));
  const gradient = readout("gradient", "w(1 − w)");
  top.el.querySelector("output").dataset.key = ""; // the one read-out a screen reader announces
  el.querySelector(".stage").append(
    html("div", { class: "controls wide" }, divisor.el),
    chart.root,
    html("div", { class: "panel" }, control.el, html("div", { class: "readouts single" }, width.el, dividedBy.el, top.el, gradient.el)),
  );

  const fig = figure(el, {
    state: { width: 1, divisor: "none" },
    clamp: (s) => ({ width: clampWidth(s.width), divisor: DIVISORS.includes(s.divisor) ? s.divisor : "none" }),
    draw({ width: d, divisor: by }) {
      control.show(d);
      divisor.show(by);
      const w = widthMix(base, d, by);
      const best = topWeight(w);
      chart.set(w, { win: best.index, reference: 1 / n, referenceLabel: t({ zh: `平均 1/${n}`, en: `uniform 1/${n}` }) });
      width.show(grouped(d));
      dividedBy.show({ none: "1", sqrt: fixed(Math.sqrt(d)), d: grouped(d) }[by]);
      top.show(fixed(best.top, 3));
      gradient.show(weight(best.gradient, 3));
    },
  });
}
