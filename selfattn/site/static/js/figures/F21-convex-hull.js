// F21: drag cat's raw score in it's row as high as 8.00. The weights stay positive and sum
// to one, so the output is a convex mix of the values: it closes in on cat's value and
// never leaves the polygon they span.

import { figure, readout, t, html, clampNumber } from "../figure.js";
import { makePlane, svg } from "../kit/plane.js";
import { attention, softmaxRow, weightedSum } from "../attention.js";
import { fixed, vector } from "../kit/format.js";
import { valueHandle } from "../kit/handles.js";
import { valueArrows, convexHull, insideConvex, polygon, point } from "../weighted-sum.js";

const LOW = -1, HIGH = 8;

/** A fraction as a whole percentage, as the article prints it: 0.0105 → "1%". */
const percent = (x) => `${fixed(100 * x, 0)}%`;

export default function (el, head) {
  const { tokens } = head;
  const it = tokens.indexOf("it"), cat = tokens.indexOf("cat");
  const { R, V } = attention(head.X, head.W_Q, head.W_K, head.W_V);
  const root2 = Math.sqrt(head.X[0].length);
  const hull = convexHull(V);

  const plane = makePlane({
    x: [-0.3, 1.6], y: [-0.3, 1.9], unit: 160, grid: 0.5,
    label: t({ zh: "值向量围成的多边形，和 it 的输出", en: "The polygon of the values, and it's output" }),
  });
  polygon(plane, hull);
  valueArrows(plane, tokens, V, { cls: "value faint" });
  const output = point(plane, { label: "out", dx: -12, dy: 20 });

  // it's row of raw scores, with cat's bar on a track
  const width = 360, height = 240, top = 30, bottom = 30, slot = width / tokens.length;
  const chart = svg("svg", {
    viewBox: `0 0 ${width} ${height}`, class: "chart scores-row",
    role: "group", "aria-label": t({ zh: "it 这一行的原始分数", en: "The raw scores of it's row" }),
  });
  const y = (r) => top + ((HIGH - r) / (HIGH - LOW)) * (height - top - bottom);
  const score = (py) => HIGH - ((py - top) / (height - top - bottom)) * (HIGH - LOW);
  for (const level of [2, 4, 6, 8]) {
    svg("line", { x1: 0, x2: width, y1: y(level), y2: y(level), class: "gridline" }, chart);
    svg("text", { x: width - 3, y: y(level) - 3, class: "tick end" }, chart).textContent = fixed(level, 0);
  }
  svg("line", { x1: 0, x2: width, y1: y(0), y2: y(0), class: "baseline" }, chart);
  const track = svg("rect", { x: slot * (cat + 0.1), width: slot * 0.8, y: y(HIGH) - 8, height: y(LOW) - y(HIGH) + 16, rx: 6, class: "track" }, chart);
  const bars = tokens.map((token, j) => {
    const cx = slot * (j + 0.5);
    const rect = svg("rect", { x: cx - slot * 0.3, width: slot * 0.6, class: "bar" }, chart);
    const value = svg("text", { x: cx, class: "bar-value", "data-readout": `raw.${token}` }, chart);
    svg("text", { x: cx, y: height - 9, class: "bar-label" }, chart).textContent = token;
    return { rect, value };
  });
  const knob = valueHandle(chart, {
    label: t({ zh: "cat 的原始分数 R[it, cat]", en: "cat's raw score R[it, cat]" }),
    min: LOW, max: HIGH, step: 0.1, hit: track,
    toPoint: (v) => [slot * (cat + 0.5), y(v)],
    fromPoint: ([, py]) => score(py),
    onMove: (raw) => fig.set({ raw }),
    get: () => fig.state.raw,
  });

  const raw = readout("raw", "R[it, cat]");
  const share = readout("w.cat", "w(cat)");
  const out = readout("output", "out");
  out.el.querySelector("output").dataset.key = ""; // the one read-out a screen reader hears change
  const gap = readout("gap", t({ zh: "离 v(cat) 的距离", en: "from v(cat)" }));
  const inside = readout("inside", t({ zh: "在多边形里", en: "inside polygon" }));
  el.querySelector(".stage").append(
    plane.root,
    html("div", { class: "panel" },
      chart,
      html("p", { class: "figure-note" }, t({
        zh: "拖动 cat 那根柱子上的圆点（或用方向键、Home/End）。",
        en: "Drag the knob on cat's bar (or use the arrow keys, Home and End).",
      })),
      html("div", { class: "readouts wide" }, raw.el, share.el, out.el, gap.el, inside.el),
    ),
  );

  const fig = figure(el, {
    state: { raw: R[it][cat] },
    clamp: (s) => ({ raw: clampNumber(s.raw, LOW, HIGH, R[it][cat]) }),
    draw({ raw: r }) {
      const row = R[it].map((v, j) => (j === cat ? r : v));
      const w = softmaxRow(row.map((v) => v / root2));
      const [o] = weightedSum([w], V);
      row.forEach((v, j) => {
        const a = y(Math.max(0, v)), b = y(Math.min(0, v));
        bars[j].rect.setAttribute("y", a);
        bars[j].rect.setAttribute("height", Math.max(1, b - a));
        bars[j].rect.setAttribute("class", `bar ${v >= 0 ? "pos" : "neg"}${j === cat ? " dragged" : ""}`);
        // cat's number keeps clear of the knob: above it, or above the baseline when negative
        const label = j !== cat ? (v >= 0 ? a - 5 : b + 13) : v >= 0 ? a - 16 : y(0) - 5;
        bars[j].value.setAttribute("y", label);
        bars[j].value.textContent = fixed(v);
      });
      knob.place(r, fixed(r));
      output.set(o);
      const relative = Math.hypot(o[0] - V[cat][0], o[1] - V[cat][1]) / Math.hypot(...V[cat]);
      raw.show(fixed(r));
      share.show(fixed(w[cat], 3));
      out.show(vector(o));
      gap.show(percent(relative));
      inside.show(insideConvex(o, hull) ? t({ zh: "是", en: "yes" }) : t({ zh: "否", en: "no" }));
    },
  });
}
