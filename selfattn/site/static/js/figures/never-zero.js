// F13: push cat's score in row it down to −30; its weight, on a log axis and in
// scientific notation, keeps shrinking and never reaches zero; the same weight as a bar on a
// linear axis vanishes long before it does.

import { softmaxRow } from "../attention.js";
import { clampNumber, figure } from "../figure.js";
import { t } from "../i18n.js";
import { axis, chart, linear, log, title } from "../kit/chart.js";
import { svg } from "../kit/dom.js";
import { fixed, scientific, weight } from "../kit/format.js";
import { valueHandle } from "../kit/handles.js";
import { marks } from "../kit/marks.js";
import { stage } from "../kit/stage.js";

const HIGHEST = 3;
const SMALLEST = 1e-16; // the weight axis runs from 10⁻¹⁶ to 1
const SCORE_Y = 44,
  WEIGHT_Y = 128, // the two number lines
  BAR_Y = 212; // the same weight as a bar, on a linear axis from 0 to 1: its hue says it
const HEIGHT = 248;
// the room "← 0 lies infinitely far" takes at the weight line's start, in the chart's units
const NOTE = 150;
// wider on a laptop, so the three lines are not a tower there; a phone keeps the design size,
// where the type (which keeps its size) clears the lines
const WIDTH = matchMedia("(max-width: 1099px)").matches ? 360 : 480;

/** 10⁻⁸ as the page writes powers; 1 as 1. */
const power = (w) => (w === 1 ? "1" : scientific(w, 1).replace(/^1 × /, ""));

/** @param {HTMLElement} el @param {import("../kit/head.js").Head} head @param {import("../kit/head.js").Article} article */
export default function (el, head, article) {
  const LOWEST = article.floorScore; // the score the prose names: invisible, not zero
  const it = head.index("it"),
    cat = head.index("cat");
  const row = head.run().S[it];
  const others = row.map((_, j) => j).filter((j) => j !== cat);
  const { picture, readouts } = stage(el);
  const frame = chart(picture, {
    width: WIDTH,
    height: HEIGHT,
    cls: "floor",
    margin: { left: 24, right: 22, top: SCORE_Y - 6, bottom: HEIGHT - SCORE_Y - 6 },
    label: t({ zh: "cat 的分数和它的权重（对数轴）", en: "cat's score and its weight on a log axis" }),
  });
  const { box, layers } = frame;
  const x = linear([LOWEST, HIGHEST], [box.left, box.right]);
  const xw = log([SMALLEST, 1], [box.left, box.right]);
  // two number lines in one picture: the weight line is the score line's frame moved down
  const lower = { ...frame, box: { ...box, top: WEIGHT_Y - 6, bottom: WEIGHT_Y + 6 } };
  const linearW = linear([0, 1], [box.left, box.right]);
  const bottom = { ...frame, box: { ...box, top: BAR_Y - 14, bottom: BAR_Y } };
  axis(frame, x, { side: "bottom", values: [LOWEST, -20, -10, 0], format: (v) => fixed(v, 0) });
  const scoreTicks = /** @type {SVGTextElement[]} */ ([...layers.grid.querySelectorAll("text.tick")]);
  axis(lower, xw, { side: "bottom", values: [1e-16, 1e-12, 1e-8, 1e-4, 1], format: power });
  axis(bottom, linearW, { side: "bottom", values: [0, 0.5, 1], format: (v) => fixed(v, v % 1 ? 1 : 0) });
  title(
    frame,
    t({ zh: "cat 缩放后的分数 s（竖线：另外五个）", en: "cat's scaled score s (lines: the other five)" }),
    16,
  );
  const weightTitle = title(frame, t({ zh: "它的权重 w，对数轴", en: "its weight w, log axis" }), WEIGHT_Y - 26);
  // the bar's axis named as the other one, at its right end (the bar grows from the left): its
  // 0 is a tick, not the log line's 0 that never comes
  const linearTitle = title(frame, t({ zh: "同一个 w，线性轴", en: "the same w, linear axis" }), BAR_Y - 22);
  linearTitle.setAttribute("x", String(box.right));
  linearTitle.style.textAnchor = "end";
  // where 0 would be: not on the log axis at all, said on that axis (the bar's linear axis
  // under it does start at 0)
  const note = svg("text", { class: "zero-note", y: WEIGHT_Y - 10 }, layers.labels);
  note.textContent = t({
    zh: "← 0 在无穷远处",
    en: "← 0 lies infinitely far",
  });
  const onScores = marks(frame, x),
    onWeights = marks(frame, xw);
  for (const y of [SCORE_Y, WEIGHT_Y]) onScores.rule({ y, cls: "baseline" });
  const link = svg("line", { class: "link", y1: SCORE_Y, y2: WEIGHT_Y }, layers.marks);
  // the other five as short upright ticks on each line: dots a fraction of a unit apart
  // merged into one blob, while ticks stay apart
  const rug = (/** @type {number} */ y, /** @type {string} */ cls) =>
    svg("line", { class: `other ${cls}`.trim(), y1: y - 7, y2: y + 7 }, layers.marks);
  const at = (/** @type {SVGLineElement} */ line, /** @type {number} */ px) => {
    line.setAttribute("x1", String(px));
    line.setAttribute("x2", String(px));
  };
  for (const j of others) at(rug(SCORE_Y, ""), x(row[j]));
  const otherWeights = others.map(() => rug(WEIGHT_Y, "weight"));
  const marker = onWeights.dot({ cls: "weight-marker", r: 6 });
  const bar = svg("rect", { class: "weight-bar", x: linearW(0), y: BAR_Y - 12, height: 12 }, layers.marks);
  // the score line is a track: a press anywhere on it, at −30 say, puts cat's score there
  const track = svg(
    "rect",
    { class: "track", x: box.left - 9, width: box.right - box.left + 18, y: SCORE_Y - 9, height: 18, rx: 9 },
    layers.grid,
  );
  const knob = valueHandle(frame.root, {
    label: t({ zh: "cat 缩放后的分数", en: "cat's scaled score" }),
    min: LOWEST,
    max: HIGHEST,
    step: 0.5,
    page: 5,
    orientation: "horizontal",
    toPoint: (s) => [x(s), SCORE_Y],
    fromPoint: ([px]) => x.invert(px),
    // the last half step rests on the floor the prose names, as a press at the track's end means
    onMove: (score) => fig.set({ score: score - LOWEST < 0.5 ? LOWEST : score }),
    get: () => fig.state.score,
    hit: track,
  });
  // the score is the knob's place on its line: the one read-out is the weight, whose digits
  // the log axis only hints at
  const out = readouts({ "w.cat": "w_cat" }, { key: "w.cat" });

  const fig = figure(el, {
    state: { score: row[cat] },
    clamp: (s) => ({ score: clampNumber(s.score, LOWEST, HIGHEST, row[cat]) }),
    draw({ score: s }) {
      const w = softmaxRow(row.map((v, j) => (j === cat ? s : v)));
      knob.place(s, `${fixed(s)}; w = ${weight(w[cat])}`);
      link.setAttribute("x1", String(x(s)));
      link.setAttribute("x2", String(xw(w[cat])));
      // the link crosses the score numbers and the weight's title where it runs: the number
      // under it is hidden, and the title moves to the other end of the line
      const [top, bottom] = [x(s), xw(w[cat])];
      const across = (/** @type {number} */ y) => top + ((bottom - top) * (y - SCORE_Y)) / (WEIGHT_Y - SCORE_Y);
      // the title, shorter than half the line even on a phone, takes the half the link is not in
      const left = across(WEIGHT_Y - 26) < (box.left + box.right) / 2;
      weightTitle.setAttribute("x", String(left ? box.right : 4));
      weightTitle.style.textAnchor = left ? "end" : "start"; // over the title class's own anchor
      for (const tick of scoreTicks) {
        const at = Number(tick.getAttribute("x"));
        tick.style.display = Math.abs(at - across(SCORE_Y + 18)) < 16 ? "none" : "";
      }
      // at the line's start, or just past the link where the link runs through that start
      const cross = Math.max(across(WEIGHT_Y - 20), xw(w[cat]));
      note.setAttribute("x", String(cross < box.left + NOTE ? cross + 12 : box.left));
      marker.set(w[cat], WEIGHT_Y);
      bar.setAttribute("width", String(linearW(w[cat]) - linearW(0)));
      for (const [k, tick] of otherWeights.entries()) at(tick, xw(w[others[k]]));
      out.show({ "w.cat": weight(w[cat]) });
    },
  });
}
