// F15: the same width slider; without a divisor row ate's mix collapses onto one token,
// and the gradient w(1 − w) through the winner collapses with it.

import { figure, readout, html, t } from "../figure.js";
import { widthMix } from "../attention.js";
import { svg } from "../kit/plane.js";
import { widthSlider, clampWidth, baseScores, topWeight, mixChart } from "../width.js";
import { fixed, grouped, weight } from "../kit/format.js";

const GAUGE_W = 260, GAUGE_H = 100, PAD = 16;

/** A small picture of w(1 − w) over w ∈ [0, 1] with the winner's point on it. */
function gradientGauge() {
  const x = (w) => PAD + w * (GAUGE_W - 2 * PAD);
  const y = (g) => GAUGE_H - 22 - (g / 0.25) * (GAUGE_H - 40);
  const root = svg("svg", {
    viewBox: `0 0 ${GAUGE_W} ${GAUGE_H}`, class: "chart gauge", role: "img",
    "aria-label": t({ zh: "梯度 w(1 − w) 随最大权重的变化", en: "the gradient w(1 − w) against the top weight" }),
  });
  const d = Array.from({ length: 41 }, (_, i) => `${i ? "L" : "M"} ${x(i / 40).toFixed(1)} ${y((i / 40) * (1 - i / 40)).toFixed(1)}`).join(" ");
  svg("line", { class: "baseline", x1: x(0), x2: x(1), y1: y(0), y2: y(0) }, root);
  svg("path", { class: "gradient-curve", d }, root);
  svg("text", { class: "chart-title", x: 4, y: 12 }, root).textContent = "w(1 − w)";
  for (const w of [0, 0.5, 1]) svg("text", { class: "tick", x: x(w), y: GAUGE_H - 6 }, root).textContent = fixed(w, w === 0.5 ? 1 : 0);
  const dot = svg("circle", { class: "spread-dot", r: 5 }, root);
  return { root, set(w) { dot.setAttribute("cx", x(w)); dot.setAttribute("cy", y(w * (1 - w))); } };
}

export default function (el, head) {
  const base = baseScores(head);
  const chart = mixChart(head, t({ zh: "ate 这一行的权重，不除任何数", en: "row ate's weights, divided by nothing" }));
  const gauge = gradientGauge();
  const control = widthSlider((width) => fig.set({ width }));
  const width = readout("width", t({ zh: "宽度 d", en: "width d" }));
  const top = readout("top", t({ zh: "最大权重", en: "top weight" }));
  const gradient = readout("gradient", "w(1 − w)");
  top.el.querySelector("output").dataset.key = ""; // the one read-out a screen reader announces
  el.querySelector(".stage").append(
    chart.root,
    html("div", { class: "panel" }, control.el, html("div", { class: "readouts single" }, width.el, top.el, gradient.el), gauge.root),
  );

  const fig = figure(el, {
    state: { width: 1 },
    clamp: (s) => ({ width: clampWidth(s.width) }),
    draw({ width: d }) {
      control.show(d);
      const w = widthMix(base, d, "none");
      const best = topWeight(w);
      chart.set(w, { win: best.index });
      gauge.set(best.top);
      width.show(grouped(d));
      top.show(fixed(best.top, 3));
      gradient.show(weight(best.gradient, 3));
    },
  });
}
