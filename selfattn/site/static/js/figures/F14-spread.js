// F14: a width slider on a log axis; the spread of the scores grows as √d, far past 1.

import { figure, readout, html, t } from "../figure.js";
import { svg } from "../kit/plane.js";
import { widthSlider, clampWidth, LARGEST_LOG } from "../width.js";
import { fixed, grouped } from "../kit/format.js";

const WIDTH = 360, HEIGHT = 230, LEFT = 34, RIGHT = 14, TOP = 26, BOTTOM = 40;
const TALLEST = Math.sqrt(2 ** LARGEST_LOG); // √256 = 16

export default function (el, head) {
  const x = (width) => LEFT + (Math.log2(width) / LARGEST_LOG) * (WIDTH - LEFT - RIGHT);
  const y = (spread) => TOP + (1 - spread / TALLEST) * (HEIGHT - TOP - BOTTOM);
  const root = svg("svg", {
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: "chart spread", role: "img",
    "aria-label": t({ zh: "分数的离散度随宽度按 √d 增长", en: "the spread of the scores grows as √d with the width" }),
  });
  svg("text", { class: "chart-title", x: 4, y: 14 }, root).textContent = t({ zh: "离散度 √d", en: "spread √d" });
  for (const s of [2, 4, 8, 16]) {
    svg("line", { class: "gridline", x1: LEFT, x2: WIDTH - RIGHT, y1: y(s), y2: y(s) }, root);
    svg("text", { class: "tick end", x: LEFT - 5, y: y(s) + 4 }, root).textContent = String(s);
  }
  for (let k = 0; k <= LARGEST_LOG; k += 1) {
    svg("line", { class: k % 2 ? "gridline minor" : "gridline", x1: x(2 ** k), x2: x(2 ** k), y1: TOP, y2: y(0) }, root);
    if (k % 2 === 0) svg("text", { class: "tick", x: x(2 ** k), y: y(0) + 16 }, root).textContent = grouped(2 ** k);
  }
  svg("text", { class: "axis-title", x: (LEFT + WIDTH - RIGHT) / 2, y: HEIGHT - 6 }, root).textContent = t({ zh: "宽度 d（对数轴）", en: "width d (log axis)" });
  svg("line", { class: "baseline", x1: LEFT, x2: WIDTH - RIGHT, y1: y(0), y2: y(0) }, root);
  svg("line", { class: "amber-line", x1: LEFT, x2: WIDTH - RIGHT, y1: y(1), y2: y(1) }, root);
  svg("text", { class: "amber-label", x: WIDTH - RIGHT, y: y(1) - 5 }, root).textContent = t({ zh: "1：softmax 舒服的尺度", en: "1: where softmax is comfortable" });
  const steps = 160;
  const curve = Array.from({ length: steps + 1 }, (_, i) => {
    const width = 2 ** ((i / steps) * LARGEST_LOG);
    return `${i ? "L" : "M"} ${x(width).toFixed(2)} ${y(Math.sqrt(width)).toFixed(2)}`;
  }).join(" ");
  svg("path", { class: "spread-curve", d: curve }, root);
  const guide = svg("path", { class: "guide" }, root);
  const dot = svg("circle", { class: "spread-dot", r: 6 }, root);
  const label = svg("text", { class: "spread-label" }, root);

  const control = widthSlider((width) => fig.set({ width }));
  const width = readout("width", t({ zh: "宽度 d", en: "width d" }));
  const spread = readout("spread", t({ zh: "离散度 √d", en: "spread √d" }));
  spread.el.querySelector("output").dataset.key = ""; // the one read-out a screen reader announces
  el.querySelector(".stage").append(root, html("div", { class: "panel" }, control.el, html("div", { class: "readouts single" }, width.el, spread.el)));

  const fig = figure(el, {
    state: { width: 1 },
    clamp: (s) => ({ width: clampWidth(s.width) }),
    draw({ width: d }) {
      control.show(d);
      const s = Math.sqrt(d);
      guide.setAttribute("d", `M ${x(d)} ${y(0)} V ${y(s)} H ${LEFT}`);
      dot.setAttribute("cx", x(d));
      dot.setAttribute("cy", y(s));
      // up and to the left of the dot is always clear of this rising curve; at the
      // left edge there is no room there, so the label goes above and to the right
      const atEdge = d <= 2;
      label.setAttribute("x", x(d) + (atEdge ? 6 : -10));
      label.setAttribute("y", y(s) - (atEdge ? 14 : 8));
      label.setAttribute("text-anchor", atEdge ? "start" : "end");
      label.textContent = `√${grouped(d)} = ${fixed(s)}`;
      width.show(grouped(d));
      spread.show(fixed(s));
    },
  });
}
