// F23: drag the context length along a log axis and watch the bill: one head's n×n scores,
// every head's, and the tokens themselves, in fp16 bytes. The dot on one head's line is the
// control (a press anywhere on either chart brings it to that length); nothing but labels
// and one read-out line is written in the figure. The series are ink and mean one thing
// by their stroke in both charts: dashed grows as n² (scores, dot products), solid as n (tokens,
// projections); thick is every head or the whole layer, thin one head or the tokens. Every number comes from cost.js, the mirror
// of selfattn/cost.py (GPT-2 small).

import {
  allHeadsScoreBytes,
  dotProducts,
  GPT2_SMALL,
  layerScoreMacs,
  projectionMacs,
  projectionsDominateUntil,
  scoreBytes,
  tokenBytes,
} from "../cost.js";
import { clampNumber, figure } from "../figure.js";
import { t } from "../i18n.js";
import { axis, chart, log } from "../kit/chart.js";
import { svg } from "../kit/dom.js";
import { fixed, grouped, size } from "../kit/format.js";
import { dragWith, valueHandle } from "../kit/handles.js";
import { marks } from "../kit/marks.js";
import { setSvg } from "../kit/notation.js";
import { stage } from "../kit/stage.js";

const SHORTEST = 4,
  // log₂ n: 16 … 131,072 tokens
  LONGEST = 17;
// 256 bytes … 16 TiB: a little room above the top line
const BYTES = [2 ** 8, 2 ** 44];
// operations: room above the n² part's end for its label, and under the dot products for the crossover's
const COUNTS = [1e1, 1e15];
const SUPERSCRIPT = "⁰¹²³⁴⁵⁶⁷⁸⁹";
// px right of both charts for the bytes chart's line names: its three lines rise in parallel
// (two of them exactly so), too close for a name between them, so each is named past its end;
// wide enough for "144 heads" where a phone renders the chart's type a fifth larger
const NAMES = 104;
/** The context lengths each line is drawn through: four a doubling, 16 … 131,072. */
const LENGTHS = Array.from({ length: (LONGEST - SHORTEST) * 4 + 1 }, (_, i) => 2 ** (SHORTEST + i / 4));

/** 10⁶ for a million: powers of ten as the axis prints them. */
function power(v) {
  return `10${[...String(Math.round(Math.log10(v)))].map((c) => SUPERSCRIPT[Number(c)]).join("")}`;
}

/** How many times the scores outweigh the tokens: 171× (whole, ties to even), or 1.33× below ten. */
function times(ratio) {
  return `${ratio >= 10 ? grouped(Number(fixed(ratio, 0))) : fixed(ratio, 2)}×`;
}

/**
 * @typedef {{cls: string, value: (n: number) => number, label?: string, end?: "right"|"above"|"below", clear?: number}} Series
 *   one line: its quantity at n, and its name where it ends when it has one there (`clear`
 *   px further off the line than marks.js puts it)
 */

/**
 * A chart on the context-length axis (log, 16 … 131,072 tokens) with a log quantity up
 * the side, its `lines` and a marker at the reader's n on them: both of F23's charts, so
 * their n line up.
 * @param {HTMLElement} picture
 * @param {{cls: string, label: string, title: string, range: number[], values: number[], format: (v: number) => string,
 *   lines: Series[]}} o
 */
function contextChart(picture, { cls, label, title, range, values, format, lines }) {
  const frame = chart(picture, {
    width: 420,
    height: 290,
    // the axis title 2.5 em under the ticks
    margin: { top: 30, right: NAMES, bottom: 44, left: 50 },
    cls,
    label,
    // what is counted up the side: the two charts differ in that only
    title,
  });
  const { box, layers } = frame;
  // the shortest length a knob's width in from the side axis, so the dot there stays off its numbers
  const x = log([2 ** SHORTEST, 2 ** LONGEST], [box.left + 12, box.right]);
  const y = log(range, [box.bottom, box.top]);
  axis(frame, y, { side: "left", values, format });
  axis(frame, x, {
    side: "bottom",
    values: [16, 128, 1024, 8192, 2 ** LONGEST],
    format: grouped,
    title: t({ zh: "上下文长度 n（token）", en: "context length n (tokens)" }),
  });
  // the first tick sits at the box's corner: keep it inside the picture. The last stays
  // centred on its line, over the names' margin: set to end there it ran into 8,192
  layers.grid.querySelector("text.tick:not(.end)")?.classList.add("start");
  const on = marks(frame, x, y);
  for (const line of lines)
    on.line(
      LENGTHS.map((n) => [n, line.value(n)]),
      {
        cls: `cost-line ${line.cls}`,
        label: line.label,
        labelCls: `line-label ${line.cls}`,
        end: line.end ?? "above",
        clear: line.clear ?? 0,
      },
    );
  return { frame, x, y, on, marker: on.marker(lines, { dotCls: "cost-dot" }) };
}

/** @param {HTMLElement} el @param {import("../kit/head.js").Head} _head @param {import("../kit/head.js").Article} article */
export default function (el, _head, article) {
  const model = GPT2_SMALL,
    heads = model.layers * model.heads;
  const { picture, readouts } = stage(el);
  // each line named past its right end, in the margin, clear of the marker's dot there
  // and of the handle's ring at the longest context
  const bytes = contextChart(picture, {
    cls: "cost",
    label: t({
      zh: "字节数随上下文长度变化，两条轴都是对数刻度",
      en: "Bytes against context length, both axes logarithmic",
    }),
    title: t({ zh: "字节", en: "bytes" }),
    range: BYTES,
    values: [2 ** 10, 2 ** 20, 2 ** 30, 2 ** 40],
    format: (b) => size(b, 0),
    lines: [
      {
        cls: "all-heads",
        value: (n) => allHeadsScoreBytes(n, model),
        label: t({ zh: `${heads} 个头`, en: `${heads} heads` }),
        end: "right",
        clear: 8,
      },
      {
        cls: "one-head",
        value: (n) => scoreBytes(n, model),
        label: t({ zh: "一个头", en: "one head" }),
        end: "right",
        // the dragged line: its name clear of the handle's ring at the longest context
        clear: 20,
      },
      {
        cls: "tokens",
        value: (n) => tokenBytes(n, model),
        label: t({ zh: "token", en: "tokens" }),
        end: "right",
        clear: 8,
      },
    ],
  });
  const work = operations(picture, model, article.thousandTokens);

  // the length is dragged as the dot on one head's line, the read-out's quantity; a press
  // anywhere on either chart brings it there (the two share the context-length axis)
  const { frame, x, y } = bytes;
  const toLength = (/** @type {number} */ px) => Math.round(Math.log2(x.invert(px)) * 4) / 4;
  const knob = valueHandle(frame.root, {
    label: t({ zh: "上下文长度 n", en: "Context length n" }),
    min: SHORTEST,
    max: LONGEST,
    step: 0.25,
    page: 1,
    orientation: "horizontal",
    hit: frame.root,
    toPoint: (log2n) => [x(2 ** log2n), y(scoreBytes(Math.round(2 ** log2n), model))],
    fromPoint: ([px]) => toLength(px),
    onMove: (log2n) => fig.set({ n: Math.round(2 ** log2n) }),
    get: () => Math.log2(fig.state.n),
  });
  const ops = work.frame.root;
  dragWith(
    ops,
    knob.el,
    (event) => {
      const p = new DOMPoint(event.clientX, event.clientY).matrixTransform(ops.getScreenCTM()?.inverse());
      const log2n = Math.min(LONGEST, Math.max(SHORTEST, toLength(p.x)));
      fig.set({ n: Math.round(2 ** log2n) });
    },
    { jump: true },
  );
  const out = readouts(
    {
      head: t({ zh: "一个头的分数", en: "one head's scores" }),
      ratio: t({ zh: "分数 ÷ token", en: "scores ÷ tokens" }),
    },
    { key: "head" },
  );

  const fig = figure(el, {
    state: { n: article.gpt2Context },
    clamp: (s) => ({ n: Math.round(clampNumber(s.n, 2 ** SHORTEST, 2 ** LONGEST, article.gpt2Context)) }),
    draw({ n }) {
      knob.place(Math.log2(n), grouped(n));
      bytes.marker.set(n);
      work.marker.set(n);
      out.show({
        head: size(scoreBytes(n, model)),
        ratio: times(scoreBytes(n, model) / tokenBytes(n, model)),
      });
    },
  });
}

/**
 * The second chart, on the same context-length axis: one layer's projections (4·n·d_model²
 * multiply-adds) against its n² part (2·n²·d_model), which cross at n = 2·d_model, and one
 * head's n² dot products with 1,000 tokens → 1,000,000 marked on the line.
 * @param {HTMLElement} picture @param {import("../cost.js").Model} model
 * @param {number} THOUSAND the prose's example length
 */
function operations(picture, model, THOUSAND) {
  const projections = { cls: "projections", value: (/** @type {number} */ n) => projectionMacs(n, model) };
  const dots = { cls: "dots", value: (/** @type {number} */ n) => dotProducts(n) };
  // Each label sits on the side of its rising line where no other line runs: the n² part above
  // its right end, the projections above their line left of the crossing (the n² part is below
  // there), the dot products below theirs right of the crossover's drop line (left of it they
  // would be struck through), the crossover along the floor left of its drop line.
  const { frame, x, y, on, marker } = contextChart(picture, {
    cls: "cost ops",
    label: t({
      zh: "一层的乘加次数随上下文长度变化，对数轴",
      en: "One layer's multiply-adds against context length, log axes",
    }),
    title: t({ zh: "一层的乘加次数", en: "multiply-adds, one layer" }),
    range: COUNTS,
    values: [1e3, 1e6, 1e9, 1e12],
    format: power,
    lines: [
      {
        cls: "n-squared",
        value: (n) => layerScoreMacs(n, model),
        label: t({ zh: "n² 部分 2·n²·d_{model}", en: "n² part 2·n²·d_{model}" }),
        // the subscript hangs under the label, over the marker's dot at the line's end
        clear: 5,
      },
      projections,
      dots,
    ],
  });
  // two or three short lines each, so they fit left of the crossing and right of its drop line
  // (`up`: the last line stands on `y` and the others rise above it, clear of a line below)
  /**
   * @param {string} cls @param {string[]} lines
   * @param {{x: number, y: number, anchor?: "start"|"end", up?: boolean}} at
   */
  const stack = (cls, lines, { x: lx, y: ly, anchor = "end", up = false }) => {
    lines.forEach((text, k) => {
      // a line's height apart in em, at whatever size the stage renders the type
      const em = 1.15 * (up ? k - lines.length + 1 : k);
      const at = { x: lx, y: ly, dy: `${em}em`, class: `line-label ${cls}`, "text-anchor": anchor };
      setSvg(svg("text", at, frame.layers.labels), text);
    });
  };
  // over the projections' line near its start, where the n² part runs three decades under it
  // (at the crossing the two lines meet, and the steeper one ran through the name); ² before
  // the subscript, so it sits on the d and not loose past "model"
  stack("projections", [t({ zh: "四个投影", en: "projections" }), "4·n·d²_{model}"], {
    x: x(16) + 4,
    y: y(projections.value(4096)) - 8,
    anchor: "start",
    up: true,
  });
  const cross = projectionsDominateUntil(model);
  on.dot({ cls: "crossing", r: 3.5, at: [cross, projectionMacs(cross, model)] });
  on.rule({
    x: cross,
    from: projectionMacs(cross, model),
    cls: "drop",
    layer: "marks",
    label: t({ zh: `交点 n = ${grouped(cross)}`, en: `crossover n = ${grouped(cross)}` }),
    labelCls: "line-label crossover",
  });
  on.dot({ cls: "thousand", r: 4, at: [THOUSAND, dotProducts(THOUSAND)] });
  stack(
    "dots",
    [t({ zh: "点积 n²", en: "dot products n²" }), `${grouped(THOUSAND)} → ${grouped(dotProducts(THOUSAND))}`],
    { x: x(cross) + 7, y: y(dots.value(THOUSAND)) + 16, anchor: "start" },
  );
  frame.root.dataset.crossover = String(cross);
  return { frame, marker };
}
