// F16: choose the divisor (none, √d, d) and drag the width: with √d the mix holds at
// every width, with d it drifts toward a uniform average. The experiment is anchored at the
// toy: width 2 is its raw row `ate`, width d that row·√(d/2), so with √d every width shows
// the toy's own row (F11's ate row) and the two figures agree with nothing to explain.
// Beside the bars, the top weight over every width, one curve per divisor: the three leave
// one point at width 1 and part, so the choice is seen at once, and √d's is flat at 0.44.

import { widthMix } from "../attention.js";
import { figure } from "../figure.js";
import { t } from "../i18n.js";
import { axis, chart, linear } from "../kit/chart.js";
import { choices } from "../kit/controls.js";
import { marks } from "../kit/marks.js";
import { stage } from "../kit/stage.js";
import { baseScores, clampWidth, LARGEST_LOG, mixBars, topWeight, widthAxis } from "../width.js";

/** @typedef {"none"|"sqrt"|"d"} Divisor */
/** @type {Divisor[]} */
const DIVISORS = ["none", "sqrt", "d"];
// dividing by nothing is dividing by 1: the choices and the curves say the same three words
const NAMES = { none: "1", sqrt: "√d", d: "d" };

export default function (el, head) {
  const base = baseScores(head);
  const n = head.tokens.length;
  const { picture, controls } = stage(el);
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

  // the top weight against the width, one curve per divisor, each named at its end
  const frame = chart(picture, {
    height: 210,
    margin: { left: 36, right: 50, top: 30, bottom: 36 }, // the names of the curves past their ends
    cls: "tops",
    label: t({ zh: "三种除数下最大权重随宽度的变化", en: "The top weight against the width, for each divisor" }),
  });
  const y = linear([0, 1], [frame.box.bottom, frame.box.top]);
  axis(frame, y, { side: "left", values: [0, 0.5, 1], title: t({ zh: "最大权重", en: "top weight" }) });
  const top = (/** @type {number} */ d, /** @type {Divisor} */ by) => topWeight(widthMix(base, d, by)).top;
  /** @type {Divisor} */
  let chosen = "none"; // the curve the dot rides, set by draw before it places the dot
  const width = widthAxis(frame, {
    along: (d) => y(top(d, chosen)),
    onWidth: (d) => fig.set({ width: d }),
    get: () => fig.state.width,
    inset: 14,
  });
  const on = marks(frame, width.x, y);
  const widths = Array.from({ length: 81 }, (_, i) => 2 ** ((LARGEST_LOG * i) / 80));
  const curves = DIVISORS.map((by) => {
    const { path, label } = on.line(
      widths.map((d) => [d, top(d, by)]),
      // each named by its divisor alone: √d's flat line at 0.44 reads off the axis, and a
      // number past its end ran into a phone's edge
      {
        cls: `curve ${by}`,
        label: `÷ ${NAMES[by]}`,
        labelCls: "curve-label",
        clear: 8,
      },
    );
    // a press on a curve's name picks its divisor (as its chip does); the chart's own press,
    // under it, then brings the dot to that width
    label?.addEventListener("pointerdown", () => fig.set({ divisor: by }));
    return { by, marks: [path, label] };
  });

  const divisor = choices(controls, {
    legend: t({ zh: "分数除以", en: "Divide the scores by" }),
    name: "F16-divisor",
    options: DIVISORS.map((value) => ({ value, label: NAMES[value] })),
    onInput: (value) => fig.set({ divisor: /** @type {Divisor} */ (value) }),
  });
  // no read-out under the figure: the top weight is ate's bar's number, the one a screen
  // reader hears (a w(1 − w) there named nothing drawn; F15 draws it)
  const ate = /** @type {SVGTextElement} */ (bars.root.querySelector('[data-readout="w.ate"]'));
  ate.dataset.key = "";

  const fig = figure(el, {
    state: { width: 1, divisor: /** @type {Divisor} */ ("none") },
    clamp: (s) => ({ width: clampWidth(s.width), divisor: DIVISORS.includes(s.divisor) ? s.divisor : "none" }),
    discrete: ["divisor"],
    draw({ width: d, divisor: by }) {
      const w = widthMix(base, d, by),
        best = topWeight(w);
      chosen = by;
      for (const curve of curves) {
        for (const mark of curve.marks) mark?.classList.toggle("chosen", curve.by === by);
      }
      width.show(d);
      divisor.show(by);
      bars.set(w, { win: best.index, ghost: even });
    },
  });
}
