// F22: shuffle the order in which the six terms are read. The bars slide to their new
// places and the path of green terms takes another route, but the sum, taken here in the
// shuffled order, lands where it did: the purple output does not move.

import { figure } from "../figure.js";
import { t } from "../i18n.js";
import { makeBars } from "../kit/bars.js";
import { button } from "../kit/controls.js";
import { scientific, vector } from "../kit/format.js";
import { around, makePlane, untangle } from "../kit/plane.js";
import { stage } from "../kit/stage.js";
import { point, stepsInOrder, tipToTail, valueArrows } from "../weighted-sum.js";

/** Whether `order` is a permutation of 0..n−1. */
function isPermutation(order, n) {
  return (
    Array.isArray(order) &&
    order.length === n &&
    order.every((k) => Number.isInteger(k) && k >= 0 && k < n) &&
    new Set(order).size === n
  );
}

/** A uniformly random order that differs from `current`. */
function shuffled(current) {
  let order;
  do {
    order = [...current];
    for (let i = order.length - 1; i > 0; i -= 1) {
      const j = Math.floor(Math.random() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
  } while (order.length > 1 && order.every((k, i) => k === current[i]));
  return order;
}

export default function (el, head) {
  const { tokens } = head;
  const n = tokens.length,
    it = head.index("it");
  const reading = tokens.map((_, j) => j);
  const { W, V, out } = head.run();
  const w = W[it];
  const original = stepsInOrder(w, V, reading)[n - 1][1];
  const { picture, controls, readouts } = stage(el);

  const phone = matchMedia("(max-width: 520px)").matches;
  const plane = makePlane({
    // its data spans a few units: drawn 2× the world scale, as F20 and F29 draw the same
    // output, and says so; on a phone, where a unit is smaller still, 3×
    zoom: phone ? 3 : 2,
    ...around([...V, out[it]], { pad: 0.35 }),
    unit: 150,
    label: t({
      zh: "按阅读顺序首尾相接的六项，和它们的终点",
      en: "The six terms tip to tail in reading order, and where they end",
    }),
  });
  picture.append(plane.root);
  valueArrows(plane, tokens, V);
  const path = tipToTail(plane, n);
  const end = point(plane, { label: "out" });
  const bars = makeBars(picture, {
    labels: tokens,
    domain: [0, Math.max(...w) * 1.15],
    name: "bar",
    kind: "weights", // how much of each value is taken: the value hue
    // about as tall as the plane for its width, so the two share one height with no hole;
    // on a phone, stacked under the plane, flatter, so the plane stays the larger part
    width: 320,
    height: phone ? 200 : 280,
    title: t({ zh: "it 的权重，按相加的顺序", en: "weights of it, in the order they are added" }),
    label: t({ zh: "it 这一行的权重，按阅读顺序排列", en: "The weights in the row of it, in reading order" }),
  });
  // the way back first, then the gesture the figure is about, at the row's end
  button(controls, {
    label: t({ zh: "原来的顺序", en: "Original order" }),
    name: "reset",
    onPress: () => fig.set({ order: reading }),
  });
  button(controls, {
    label: t({ zh: "打乱", en: "Shuffle" }),
    name: "shuffle",
    onPress: () => fig.set({ order: shuffled(fig.state.order) }),
  });
  const readout = readouts(
    {
      output: t({ zh: "it 的输出", en: "output of it" }),
      moved: t({ zh: "输出移动了", en: "output moved by" }),
    },
    { key: "output" },
  );
  const exact = /** @type {HTMLElement} */ (el.querySelector("[data-readout=output]"));
  const fig = figure(el, {
    state: { order: reading },
    // anything that is not a permutation of the six keys leaves the order as it was
    clamp: (s, previous) => ({ order: isPermutation(s.order, n) ? [...s.order] : previous.order }),
    discrete: ["order"],
    draw({ order }) {
      const steps = stepsInOrder(w, V, order);
      const o = steps[n - 1][1];
      path.set(steps);
      end.set(o);
      untangle(plane, { apart: 1 }); // "it" and "out" meet near the output's tip
      bars.set(w, { order });
      const shift = Math.hypot(o[0] - original[0], o[1] - original[1]);
      readout.show({ output: vector(o), moved: shift === 0 ? "0" : scientific(shift) });
      // the full-precision sum, for anyone (a test) who wants more than two decimals
      exact.dataset.exact = JSON.stringify(o);
    },
  });
}
