// F18: drag the wall of the mask along the sentence. Softmax runs over the keys up to the
// asking position only, so the weights it keeps stretch to refill 1: each bar grows past the
// outline of its height without the mask, and the keys past the wall are dashed outlines at 0.

import { clampNumber, figure } from "../figure.js";
import { t } from "../i18n.js";
import { makeBars } from "../kit/bars.js";
import { svg } from "../kit/dom.js";
import { fixed } from "../kit/format.js";
import { valueHandle } from "../kit/handles.js";
import { stage } from "../kit/stage.js";

/** A weight as the figure prints it: an exact zero says so, anything else to 2 decimals. */
const printWeight = (w) => (w === 0 ? "0" : fixed(w));

export default function (el, head) {
  const { tokens } = head;
  const last = tokens.length - 1;
  const masked = head.run("causal").W,
    open = head.run().W;
  const { picture } = stage(el);
  const bars = makeBars(picture, {
    labels: tokens,
    // room over the 1 for the wall's knob, clear of the number over a bar that fills it
    domain: [0, 1.22],
    name: "bar",
    height: 200,
    width: 420,
    ticks: [0.5, 1], // the 1 the kept weights refill, and a mark to read a bar against
    kind: "weights",
    outline: true,
    reference: true, // room past the last key for the wall's knob
    format: printWeight,
    label: t({
      zh: "提问那一行的因果权重，细框是不加掩码时的高度；掩码的边界可以拖动",
      en: "The asking row's causal weights, each outlined at its height without the mask; the mask's edge can be dragged",
    }),
  });
  const { box } = bars.frame;
  // one scale in every position: each stretch is read against the 1 tick's gridline (a dotted
  // line over it sat under the "1.00" of a bar that fills the row)
  // the wall after the asking key: what is past it the asking token cannot see
  const wallAt = (/** @type {number} */ p) => bars.x(p) + bars.slot / 2;
  const wall = svg("line", { y1: box.top - 6, y2: box.bottom, class: "wall" }, bars.frame.layers.marks);
  const knob = valueHandle(bars.root, {
    label: t({ zh: "提问的位置", en: "Asking position" }),
    min: 0,
    max: last,
    step: 1,
    page: 1,
    orientation: "horizontal",
    cls: "query",
    hit: bars.root,
    toPoint: (p) => [wallAt(p), box.top - 6],
    fromPoint: ([x]) => Math.round((x - box.left) / bars.slot - 1),
    onMove: (position) => fig.set({ position }),
    get: () => fig.state.position,
  });
  const names = [...bars.root.querySelectorAll(".bar-label")];
  // no read-out under the figure: the largest weight is its bar's number and the keys it can
  // see are the bars before the wall. A screen reader hears the first key's weight, the one
  // every position keeps (1 alone, then giving way)
  const first = /** @type {SVGTextElement} */ (bars.root.querySelector('[data-readout="bar.the"]'));
  first.dataset.key = "";

  const fig = figure(el, {
    // it opens at ate, whose kept weights stretch furthest past their outlines (0.44 → 0.72):
    // the refill is the first thing seen, not a short row under an empty band
    state: { position: 2 },
    clamp: (s) => ({ position: Math.round(clampNumber(s.position, 0, last, 4)) }),
    discrete: ["position"],
    draw({ position: p }) {
      const row = masked[p];
      bars.set(row, {
        // the focus wash on the asking token, with its name in the query hue: the wash on the
        // largest weight left the two apart (at and the wash sat on cat, the orange on and)
        win: p,
        masked: tokens.map((_, j) => (j > p ? "0" : null)),
        ghost: open[p],
      });
      // the asking token's name in the query hue: the row is its question
      names.forEach((name, j) => {
        name.classList.toggle("asking", j === p);
      });
      wall.setAttribute("x1", String(wallAt(p)));
      wall.setAttribute("x2", String(wallAt(p)));
      knob.place(p, `${p} · ${tokens[p]}`);
    },
  });
}
