// F15: the same width slider; without a divisor row ate's mix collapses onto one token,
// and the gradient w(1 − w) through the winner collapses with it.

import { widthMix } from "../attention.js";
import { figure } from "../figure.js";
import { t } from "../i18n.js";
import { axis, chart, linear, through } from "../kit/chart.js";
import { svg } from "../kit/dom.js";
import { fixed, weight } from "../kit/format.js";
import { stage } from "../kit/stage.js";
import { baseScores, clampWidth, mixBars, topWeight, widthSlider } from "../width.js";

/** w(1 − w) over w ∈ [0, 1], with the winner's point riding on it. */
function gradientCurve(parent) {
  const frame = chart(parent, {
    // the bars' height and margins, so the curve's zero and the bars' baseline are one line
    height: 180,
    margin: { left: 40, right: 16, top: 34, bottom: 26 },
    cls: "gauge",
    label: t({ zh: "梯度 w(1 − w) 随最大权重的变化", en: "The gradient w(1 − w) against the top weight" }),
  });
  const { box, layers } = frame;
  const x = linear([0, 1], [box.left, box.right]),
    y = linear([0, 0.25], [box.bottom, box.top]);
  axis(frame, x, { side: "bottom", values: [0, 0.5, 1] });
  axis(frame, y, {
    side: "left",
    values: [0, 0.25],
    format: (v) => fixed(v, 2),
    grid: false,
  });
  // the axis's title carries the dot's value: how much gradient is left, which the curve's
  // height alone cannot tell once it is a millionth (a read-out under the figure repeated it)
  const heading = svg("text", { x: box.left, y: box.top - 6, class: "axis-title start" }, layers.grid);
  heading.textContent = t({ zh: "梯度 w(1 − w)：", en: "gradient w(1 − w): " });
  const value = svg("tspan", { class: "value", "data-readout": "gradient", "data-key": "" }, heading);
  const tops = Array.from({ length: 41 }, (_, i) => i / 40);
  svg(
    "path",
    {
      class: "curve",
      d: through(
        x,
        y,
        tops.map((w) => [w, w * (1 - w)]),
      ),
    },
    layers.marks,
  );
  // the dot is the winner's weight, named by its token and lit with its bar: the tall bar's
  // top carried over
  const dot = svg("circle", { class: "dot", r: 5 }, layers.marks);
  const name = svg("text", { class: "dot-name", dy: "1.4em" }, layers.labels);
  return (/** @type {number} */ w, /** @type {number} */ g, /** @type {string} */ token) => {
    value.textContent = weight(g, 3);
    // under the curve, on the side it climbs from: there the name keeps off it
    const up = w >= 0.5;
    dot.dataset.token = name.dataset.token = name.textContent = token;
    dot.setAttribute("cx", String(x(w)));
    dot.setAttribute("cy", String(y(g)));
    name.setAttribute("x", String(x(w) + (up ? -7 : 7)));
    name.setAttribute("y", String(y(g)));
    name.style.textAnchor = up ? "end" : "start";
  };
}

export default function (el, head) {
  const base = baseScores(head);
  const { picture, controls } = stage(el);
  const bars = mixBars(picture, head, {
    title: t({ zh: "ate 这一行的权重，不除任何数", en: "Row ate's weights, divided by nothing" }),
    height: 180,
  });
  const gauge = gradientCurve(picture);
  const width = widthSlider(controls, (d) => fig.set({ width: d }));

  const fig = figure(el, {
    state: { width: 2 }, // the toy's own width, where the question asks (0.572)
    clamp: (s) => ({ width: clampWidth(s.width) }),
    draw({ width: d }) {
      const w = widthMix(base, d, "none"),
        best = topWeight(w);
      width.show(d);
      bars.set(w, { win: best.index });
      gauge(best.top, best.gradient, head.tokens[best.index]);
    },
  });
}
