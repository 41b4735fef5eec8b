// F14: the width dragged along a log axis; the spread of the scores grows as √d, far past
// the dashed line at 1 where softmax is comfortable. Dividing by √d holds it on that line;
// dividing by d over-corrects, down to 1/√d.

import { figure } from "../figure.js";
import { t } from "../i18n.js";
import { axis, chart, log } from "../kit/chart.js";
import { svg } from "../kit/dom.js";
import { fixed } from "../kit/format.js";
import { marks } from "../kit/marks.js";
import { stage } from "../kit/stage.js";
import { clampWidth, LARGEST_LOG, widthAxis } from "../width.js";

const WIDEST = 2 ** LARGEST_LOG;

export default function (el, _head) {
  const { picture, readouts } = stage(el);
  const frame = chart(picture, {
    height: 230,
    margin: { left: 38, right: 14, top: 26, bottom: 36 }, // the axis title an em and a half under the ticks; "1/16"
    cls: "spread",
    label: t({ zh: "分数的标准差随宽度按 √d 增长", en: "The spread of the scores grows as √d with the width" }),
  });
  const { box, layers } = frame;
  // the spread on a log axis, 1/16 to 16: √d rises and 1/√d falls as mirror-image lines about
  // the line at 1 that ÷ √d holds (on a linear axis 1/√d hugged the baseline, unreadable).
  // 1/16 stands a little above the width axis: the ÷ d dot ends there, clear of its numbers
  const y = log([1 / Math.sqrt(WIDEST), Math.sqrt(WIDEST)], [box.bottom - 8, box.top]);
  axis(frame, y, {
    side: "left",
    values: [1 / 16, 1 / 4, 1, 4, 16],
    format: (v) => (v < 1 ? `1/${Math.round(1 / v)}` : String(v)),
    title: t({ zh: "标准差（对数轴）", en: "spread (log axis)" }),
  });
  // the √d dot is the figure's one control, dragged along its curve
  const width = widthAxis(frame, {
    along: (d) => y(Math.sqrt(d)),
    onWidth: (d) => fig.set({ width: d }),
    get: () => fig.state.width,
    inset: 14, // width 1's dots stand at 1, level with the axis's "1": off its number
  });
  const { x } = width;
  const on = marks(frame, x, y);
  // right of where the curve leaves the line, so the label never sits on it
  const comfortable = t({ zh: "÷ √d：1，刚好", en: "÷ √d: 1, comfortable" });
  on.rule({ y: 1, label: comfortable, at: 10 });
  // where the reader's guide runs up through that label, it breaks round it (0.6 em a
  // character, 1 em for a CJK one, at the tick size)
  const named = [x(10) - 4, x(10) + [...comfortable].reduce((w, c) => w + (c > "⺀" ? 12 : 7.5), 4)];
  const widths = Array.from({ length: 161 }, (_, i) => WIDEST ** (i / 160));
  // each curve named over its end: √d over the top corner, 1/√d over the bottom one (under it
  // stand the width axis's numbers)
  on.line(
    widths.map((d) => [d, Math.sqrt(d)]),
    { cls: "curve", label: t({ zh: "不除：√d", en: "no divisor: √d" }), labelCls: "curve-label", end: "above" },
  );
  on.line(
    widths.map((d) => [d, 1 / Math.sqrt(d)]),
    { cls: "curve over-d", label: t({ zh: "÷ d：1/√d", en: "÷ d: 1/√d" }), labelCls: "curve-label", end: "above" },
  );
  const guide = svg("path", { class: "guide" }, layers.marks);
  // a dot on each of the three at the dragged width: ÷ √d's stays on its line at 1
  const low = on.dot({ cls: "dot low", r: 4 }), // the two divided dots alike: neither is held
    held = on.dot({ cls: "dot held", r: 4 }),
    high = on.dot({ r: 6 });
  // the spread the dragged dot stands at; the ÷ d dot's mirrors it on the log axis
  const out = readouts({ spread: t({ zh: "标准差", en: "spread" }) }, { key: "spread" });

  const fig = figure(el, {
    state: { width: 1 },
    clamp: (s) => ({ width: clampWidth(s.width) }),
    draw({ width: d }) {
      const spread = Math.sqrt(d);
      const gap = x(d) > named[0] && x(d) < named[1] && spread > 1.5;
      const up = gap ? `V ${y(1) - 1} M ${x(d)} ${y(1) - 21} V ${y(spread)}` : `V ${y(spread)}`;
      guide.setAttribute("d", `M ${x(d)} ${box.bottom} ${up} H ${box.left}`);
      high.set(d, spread);
      width.show(d);
      low.set(d, 1 / spread);
      held.set(d, 1);
      out.show({ spread: fixed(spread) });
    },
  });
}
