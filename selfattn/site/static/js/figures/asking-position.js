// F18: move the asking position along the sentence. Softmax runs over the keys up to it
// only, so the row still sums to one; a pale bar beside each bar is its weight without the
// mask, and the keys the mask removes are small dashed boxes with 0.

import { argmax } from "../attention.js";
import { clampNumber, figure } from "../figure.js";
import { t } from "../i18n.js";
import { makeBars } from "../kit/bars.js";
import { slider } from "../kit/controls.js";
import { fixed } from "../kit/format.js";
import { stage } from "../kit/stage.js";

/** A weight as the figure prints it: an exact zero says so, anything else to 2 decimals. */
const printWeight = (w) => (w === 0 ? "0" : fixed(w));

export default function (el, head) {
  const { tokens } = head;
  const last = tokens.length - 1;
  const masked = head.run("causal").W,
    open = head.run().W;
  const { picture, controls, readouts, note } = stage(el);
  const bars = makeBars(picture, {
    labels: tokens,
    domain: [0, 1],
    name: "bar",
    height: 210,
    format: printWeight,
    label: t({
      zh: "提问位置那一行的因果权重，旁边的浅色柱是不加掩码时的权重",
      en: "The causal weights of the asking row; the pale bar beside each bar is its weight without the mask",
    }),
  });
  const position = slider(controls, {
    label: t({ zh: "提问的位置", en: "Asking position" }),
    min: 0,
    max: last,
    step: 1,
    name: "position",
    onInput: (p) => fig.set({ position: p }),
  });
  const out = readouts(
    {
      top: t({ zh: "最大的权重", en: "largest weight" }),
      candidates: t({ zh: "可看的键", en: "keys it can see" }),
    },
    { key: "top" },
  );
  note(
    t({
      zh: "实心柱：加了掩码的权重；旁边的浅色柱：不加掩码时的权重；带 0 的虚线小框：被遮住的键。",
      en: "Filled bars: weights with the mask; pale bar beside each: the weight without it; small dashed box with 0: a masked key.",
    }),
  );

  const fig = figure(el, {
    state: { position: 4 },
    clamp: (s) => ({ position: Math.round(clampNumber(s.position, 0, last, 4)) }),
    discrete: ["position"],
    draw({ position: p }) {
      const row = masked[p],
        best = argmax(row);
      position.show(p, `${p} · ${tokens[p]}`);
      bars.set(row, {
        win: best,
        masked: tokens.map((_, j) => (j > p ? "0" : null)),
        ghost: open[p],
      });
      out.show({
        top: `${tokens[best]} ${fixed(row[best])}`,
        candidates: String(p + 1),
      });
    },
  });
}
