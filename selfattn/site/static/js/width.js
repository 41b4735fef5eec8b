// The width experiment that F14–F16 share: the width on a log axis (1 … 256), dragged as a
// dot along a chart's own width axis (F14, F16) or a slider (F15), and the mix of row `ate`
// as the head widens, divided by nothing, √d or d.

import { clampNumber } from "./figure.js";
import { t } from "./i18n.js";
import { makeBars } from "./kit/bars.js";
import { axis, log } from "./kit/chart.js";
import { slider } from "./kit/controls.js";
import { html } from "./kit/dom.js";
import { grouped, weight } from "./kit/format.js";
import { valueHandle } from "./kit/handles.js";

export const LARGEST_LOG = 8; // widths 2⁰ … 2⁸
const LABELLED = [0, 2, 4, 6, 8]; // 1, 4, 16, 64, 256: each four times the last

/** Any input → a width the slider can show: a power of two in 1 … 256 (1 if unreadable). */
export function clampWidth(width) {
  return 2 ** Math.round(Math.log2(clampNumber(width, 1, 2 ** LARGEST_LOG, 1)));
}

/**
 * The width slider: a range input over log₂ d, with the widths it stops at marked under
 * the track, every other one labelled, so the reader sees the axis is logarithmic.
 * @param {HTMLElement} parent @param {(width: number) => void} onInput
 */
export function widthSlider(parent, onInput) {
  const wrap = html("div", { class: "width-control" });
  parent.append(wrap);
  const control = slider(wrap, {
    label: t({ zh: WIDTH_NAME.zh, en: "Width d (log axis)" }),
    min: 0,
    max: LARGEST_LOG,
    step: 1,
    name: "width",
    onInput: (k) => onInput(2 ** k),
  });
  wrap.append(
    html(
      "div",
      { class: "log-scale", "aria-hidden": "true" },
      ...Array.from({ length: LARGEST_LOG + 1 }, (_, k) => {
        const tick = html(
          "span",
          { class: LABELLED.includes(k) ? "labelled" : "" },
          LABELLED.includes(k) ? grouped(2 ** k) : "",
        );
        tick.style.setProperty("--at", String(k / LARGEST_LOG));
        return tick;
      }),
    ),
  );
  return {
    input: control.input,
    /** @param {number} width */
    show(width) {
      control.show(Math.log2(width), grouped(width));
    },
  };
}

const WIDTH_NAME = { zh: "宽度 d（对数轴）", en: "width d (log axis)" };

/**
 * A chart's bottom axis as the width, on a log scale, and the dot that is dragged along it
 * (or stepped with the arrow keys) riding the curve `along`: the figure's width control.
 * @param {ReturnType<typeof import("./kit/chart.js").chart>} frame
 * @param {{along: (width: number) => number, onWidth: (width: number) => void, get: () => number, inset?: number}} o
 *   `along` is the dot's height in the chart's units at a width; `inset` keeps width 1 that
 *   far off the left axis (a dot halfway up would sit on its tick numbers)
 */
export function widthAxis(frame, { along, onWidth, get, inset = 0 }) {
  const { box } = frame;
  const x = log([1, 2 ** LARGEST_LOG], [box.left + inset, box.right]);
  axis(frame, x, { side: "bottom", values: LABELLED.map((k) => 2 ** k), format: grouped, title: t(WIDTH_NAME) });
  const knob = valueHandle(frame.root, {
    label: t(WIDTH_NAME),
    min: 0,
    max: LARGEST_LOG,
    step: 1,
    page: 1,
    orientation: "horizontal",
    hit: frame.root,
    toPoint: (k) => [x(2 ** k), along(2 ** k)],
    fromPoint: ([px]) => Math.round(Math.log2(x.invert(px))),
    onMove: (k) => onWidth(2 ** k),
    get: () => Math.log2(get()),
  });
  return {
    x,
    /** @param {number} width */
    show(width) {
      knob.place(Math.log2(width), grouped(width));
    },
  };
}

/** Raw row `ate`: the scores at width 2, the toy's own, which grow as √(width/2). @param {import("./kit/head.js").Head} head */
export function baseScores(head) {
  return head.run().R[head.index("ate")];
}

/**
 * The largest weight, where it sits, and the gradient w(1 − w) through it, with 1 − w
 * summed from the other weights so it keeps its digits when w is within 10⁻⁹ of 1.
 * @param {number[]} weights
 */
export function topWeight(weights) {
  const index = weights.reduce((best, w, i) => (w > weights[best] ? i : best), 0);
  const rest = weights.reduce((sum, w, i) => (i === index ? sum : sum + w), 0);
  return { index, top: weights[index], gradient: weights[index] * rest };
}

/**
 * A weight short enough to sit on a bar: three decimals, and below half a thousandth
 * "<0.001" (never a bare 0; the exact value is for read-outs, which have the room).
 * @param {number} w
 */
export function barWeight(w) {
  return w >= 0.0005 ? weight(w, 3) : "<0.001";
}

/**
 * Six weight bars for row `ate`'s mix, on the 0–1 scale, each number at its bar's end.
 * @param {HTMLElement} parent @param {import("./kit/head.js").Head} head
 * @param {{title: string, reference?: boolean, outline?: boolean, height?: number}} o `reference`: room for a
 *   reference line's label; `outline`: a ghost is an outline on each bar (F16's even share);
 *   `height` in the chart's units (a figure with a second chart under it takes less)
 */
export function mixBars(parent, head, { title, reference = false, outline = false, height = 210 }) {
  return makeBars(parent, {
    reference,
    outline,
    kind: "weights",
    // a little scale above 1, so the number on a bar of 1.000 stays clear of the title
    labels: head.tokens,
    domain: [0, 1.1],
    ticks: [0.5, 1],
    title,
    height,
    name: "w",
    label: t({ zh: "ate 这一行的权重", en: "the weights of row ate" }),
    format: barWeight,
  });
}
