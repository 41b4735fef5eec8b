// F14: a width slider on a log axis; the spread of the scores grows as √d, far past
// the dashed line at 1 where softmax is comfortable. Dividing by √d holds it on that line;
// dividing by d over-corrects, down to 1/√d.

import { figure, t } from "../figure.js";
import { axis, chart, linear, log, through } from "../kit/chart.js";
import { fixed, grouped } from "../kit/format.js";
import { setSvg } from "../kit/notation.js";
import { svg } from "../kit/plane.js";
import { stage } from "../kit/stage.js";
import { clampWidth, LARGEST_LOG, widthSlider } from "../width.js";

const WIDEST = 2 ** LARGEST_LOG;

export default function (el, _head) {
  const { picture, controls, readouts } = stage(el);
  const frame = chart(picture, {
    height: 230,
    margin: { left: 30, right: 14, top: 26, bottom: 42 },
    cls: "spread",
    label: t({ zh: "分数的标准差随宽度按 √d 增长", en: "The spread of the scores grows as √d with the width" }),
  });
  const { box, layers } = frame;
  const x = log([1, WIDEST], [box.left, box.right]);
  const y = linear([0, Math.sqrt(WIDEST)], [box.bottom, box.top]);
  axis(frame, y, { side: "left", values: [0, 4, 8, 12, 16], title: t({ zh: "标准差 √d", en: "spread √d" }) });
  axis(frame, x, {
    side: "bottom",
    values: [1, 4, 16, 64, 256],
    format: grouped,
    title: t({ zh: "宽度 d（对数轴）", en: "width d (log axis)" }),
  });
  svg("line", { class: "baseline", x1: box.left, x2: box.right, y1: y(0), y2: y(0) }, layers.grid);
  svg("line", { class: "reference", x1: box.left, x2: box.right, y1: y(1), y2: y(1) }, layers.grid);
  // right of where the curve leaves the line, so the label never sits on it
  setSvg(
    svg("text", { class: "reference-label", x: x(10), y: y(1) - 5 }, layers.labels),
    t({ zh: "÷ √d：1，刚好", en: "÷ √d: 1, comfortable" }),
  );
  const widths = Array.from({ length: 161 }, (_, i) => WIDEST ** (i / 160));
  svg(
    "path",
    {
      class: "curve",
      d: through(
        x,
        y,
        widths.map((d) => [d, Math.sqrt(d)]),
      ),
    },
    layers.marks,
  );
  const overD = through(
    x,
    y,
    widths.map((d) => [d, 1 / Math.sqrt(d)]),
  );
  svg("path", { class: "curve over-d", d: overD }, layers.marks);
  // each curve named where nothing else runs: √d above its end (it rises to the corner),
  // 1/√d in the empty middle with a leader down to its curve
  setSvg(
    svg("text", { class: "curve-label end", x: box.right - 2, y: box.top - 6 }, layers.labels),
    t({ zh: "不除：√d", en: "no divisor: √d" }),
  );
  const LEADER = 128; // right of the reference line's label, under the √d curve
  setSvg(
    svg("text", { class: "curve-label end", x: x(LEADER) - 3, y: y(3) }, layers.labels),
    t({ zh: "÷ d：1/√d", en: "÷ d: 1/√d" }),
  );
  svg(
    "line",
    { class: "leader", x1: x(LEADER), x2: x(LEADER), y1: y(3) - 4, y2: y(1 / Math.sqrt(LEADER)) - 3 },
    layers.marks,
  );
  const lowDot = svg("circle", { class: "dot low", r: 5 }, layers.marks);
  const guide = svg("path", { class: "guide" }, layers.marks);
  const dot = svg("circle", { class: "dot", r: 6 }, layers.marks);
  const width = widthSlider(controls, (d) => fig.set({ width: d }));
  const out = readouts(
    { spread: t({ zh: "不除：√d", en: "no divisor: √d" }), "over-d": t({ zh: "÷ d：1/√d", en: "÷ d: 1/√d" }) },
    { key: "spread" },
  );

  const fig = figure(el, {
    state: { width: 1 },
    clamp: (s) => ({ width: clampWidth(s.width) }),
    draw({ width: d }) {
      const spread = Math.sqrt(d);
      width.show(d);
      guide.setAttribute("d", `M ${x(d)} ${y(0)} V ${y(spread)} H ${box.left}`);
      dot.setAttribute("cx", String(x(d)));
      dot.setAttribute("cy", String(y(spread)));
      lowDot.setAttribute("cx", String(x(d)));
      lowDot.setAttribute("cy", String(y(1 / spread)));
      out.show({ spread: fixed(spread), "over-d": fixed(1 / spread) });
    },
  });
}
