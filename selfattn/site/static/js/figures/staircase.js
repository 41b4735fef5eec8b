// F11: pick a row; its scores go through exp, then each is divided by the row's total,
// and a dashed staircase stacks the weights, landing exactly on 1. Shift every score of the
// row by the same c and the weights stay put; make c huge and exp overflows to ∞ (∞/∞ has
// no value), while c = −max s, subtracting the row's max, never does. That chip is the
// stable recipe itself: a switch for it beside the chips was a third control saying it again.

import { argmax, softmaxRow } from "../attention.js";
import { figure } from "../figure.js";
import { t } from "../i18n.js";
import { makeBars } from "../kit/bars.js";
import { choices, stepper, tokenIndex } from "../kit/controls.js";
import { fixed, grouped, scientific, weight } from "../kit/format.js";
import { setSvg } from "../kit/notation.js";
import { stage } from "../kit/stage.js";

/** c for a shift's name, in a row of scores. @param {string} shift @param {number[]} row */
function shiftBy(shift, row) {
  return shift === "max" ? -Math.max(...row) : Number(shift);
}

/** @param {HTMLElement} el @param {import("../kit/head.js").Head} head @param {import("../kit/head.js").Article} article */
export default function (el, head, article) {
  // the shifts offered, growing: none, a little, past exp's overflow, then the cure: minus the
  // row's largest score, whose eˢ is then e⁰ = 1 and every other under it
  const LITTLE = 10; // the shift that stays finite: every eˢ grows e¹⁰ times, no weight moves
  const SHIFTS = ["0", String(LITTLE), String(article.hugeShift), "max"];
  const { tokens } = head,
    it = head.index("it");
  const { S } = head.run();
  const { picture, controls, readouts } = stage(el);
  // the scale fits the row shown, up to the largest eˢ a shift reaches (+10): a shift's bars keep
  // their shape at their own scale (capped at the rows' tallest, +10 drew every bar at the
  // top, 3 × 10⁴ and 7 × 10⁴ alike); an overflow's ∞ stands at the top; e⁰ = 1 is a score of 0
  const tallest = Math.ceil(Math.max(...S.flat().map(Math.exp)));
  const reach = Math.ceil(Math.exp(Math.max(...S.flat()) + LITTLE));
  const exps = makeBars(picture, {
    labels: tokens,
    domain: [0, reach],
    ticks: [1, tallest],
    fit: true,
    height: 180, // as tall as the weights, so the two baselines are one line
    name: "e",
    title: "eˢ",
    label: t({ zh: "这一行分数的指数", en: "The exponentials of the row's scores" }),
  });
  const weights = makeBars(picture, {
    labels: tokens,
    domain: [0, 1],
    ticks: [0.5, 1],
    edge: true,
    height: 180,
    kind: "weights",
    name: "w",
    title: "w = eˢ / Σeˢ",
    label: t({ zh: "这一行的权重和累加的阶梯", en: "The row's weights and their running total" }),
    format: (w) => weight(w, 2),
  });
  // past overflow the weights chart's own title says what ∞/∞ is in floating point: no
  // note of its own inside the picture
  const heading = /** @type {SVGTextElement} */ (weights.root.querySelector(".chart-title"));
  // one slim row: the row walked by a stepper, the shift as four chips
  const pick = stepper(controls, {
    label: t({ zh: "行", en: "Row" }),
    items: [...tokens],
    name: "row",
    onPick: (row) => fig.set({ row }),
  });
  const shifting = choices(controls, {
    // the legend says "c =" once, so the four chips and the row's stepper fit a phone
    legend: t({ zh: "每个分数加 c =", en: "Add to every score c =" }),
    name: "F11-shift",
    options: SHIFTS.map((value) => ({
      value,
      label: value === "max" ? "−max s" : value === "0" ? "0" : `+${grouped(Number(value))}`,
    })),
    onInput: (shift) => fig.set({ shift }),
  });
  // the sums for a screen reader (css: F11): the staircase's last step on the top edge shows Σw = 1
  const out = readouts({ total: "Σw", "sum-exp": "Σeˢ" }, { key: "total" });

  const fig = figure(el, {
    state: { row: it, shift: "0" },
    // a row by index or by its token's name (#F11:row=it); past the end, the last row
    clamp: (s) => ({
      row: Number(s.row) >= tokens.length ? tokens.length - 1 : tokenIndex(tokens, s.row, it),
      shift: SHIFTS.includes(String(s.shift)) ? String(s.shift) : "0",
    }),
    discrete: ["row", "shift"],
    draw({ row, shift }) {
      const c = shiftBy(shift, S[row]);
      const scores = S[row].map((s) => s + c);
      const e = scores.map(Math.exp);
      const sumExp = e.reduce((a, b) => a + b, 0);
      const overflow = !Number.isFinite(sumExp);
      // the weights as this recipe computes them; past overflow every one is ∞/∞, no number
      const w = overflow ? e.map(() => 0) : e.map((x) => x / sumExp);
      const win = overflow ? -1 : argmax(softmaxRow(S[row]));
      pick.show(row);
      shifting.show(shift);
      el.classList.toggle("overflow", overflow);
      // past overflow the title says what ∞/∞ is in floating point: no number
      setSvg(heading, overflow ? "w = ∞/∞ = NaN" : "w = eˢ / Σeˢ");
      exps.set(
        e.map((x) => Math.min(x, reach)),
        { win, texts: e.map((x) => (!Number.isFinite(x) ? "∞" : x >= 1000 ? scientific(x, 1) : fixed(x))) },
      );
      weights.set(w, { win, staircase: !overflow, texts: overflow ? w.map(() => "∞/∞") : [] });
      out.show({
        total: overflow
          ? "∞/∞"
          : fixed(
              w.reduce((a, b) => a + b, 0),
              3,
            ),
        "sum-exp": overflow ? "∞" : sumExp >= 1000 ? scientific(sumExp, 1) : fixed(sumExp),
      });
    },
  });
}
