// F22: shuffle the order in which the six terms are read. The bars reorder and the path
// takes another route, but the sum, taken here in the shuffled order, lands where it did.

import { figure, readout, t, html } from "../figure.js";
import { makePlane } from "../kit/plane.js";
import { attention } from "../attention.js";
import { fixed, scientific, vector } from "../kit/format.js";
import { button } from "../switch.js";
import { makeWeightRow } from "../weight-row.js";
import { valueArrows, tipToTail, stepsInOrder, point } from "../weighted-sum.js";

/** Whether `order` is a permutation of 0..n−1. */
function isPermutation(order, n) {
  return Array.isArray(order) && order.length === n
    && order.every((k) => Number.isInteger(k) && k >= 0 && k < n)
    && new Set(order).size === n;
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
  const n = tokens.length, it = tokens.indexOf("it");
  const reading = tokens.map((_, j) => j);
  const { W, V } = attention(head.X, head.W_Q, head.W_K, head.W_V);
  const w = W[it];
  const original = stepsInOrder(w, V, reading)[n - 1][1];

  const bars = makeWeightRow({
    tokens, name: "bar", height: 170, max: 0.4,
    label: t({ zh: "it 这一行的权重，按阅读顺序排列", en: "The weights of it's row, in reading order" }),
  });
  const plane = makePlane({
    x: [-0.3, 1.6], y: [-0.3, 1.9], unit: 160, grid: 0.5,
    label: t({ zh: "按阅读顺序首尾相接的六项，和它们的终点", en: "The six terms tip to tail in reading order, and where they end" }),
  });
  valueArrows(plane, tokens, V, { cls: "value faint" });
  const path = tipToTail(plane, n);
  const end = point(plane, { label: "out", dx: 10, dy: 18 });
  const shuffle = button({
    label: t({ zh: "打乱", en: "Shuffle" }), name: "shuffle",
    onPress: () => fig.set({ order: shuffled(fig.state.order) }),
  });
  const reset = button({
    label: t({ zh: "原来的顺序", en: "Original order" }), name: "reset",
    onPress: () => fig.set({ order: reading }),
  });
  const sequence = readout("order", t({ zh: "阅读顺序", en: "order" }));
  const out = readout("output", "out");
  out.el.querySelector("output").dataset.key = ""; // the one read-out a screen reader hears change
  const moved = readout("moved", t({ zh: "输出移动了", en: "output moved by" }));
  const exact = out.el.querySelector("output");
  el.querySelector(".stage").append(
    plane.root,
    html("div", { class: "panel" },
      html("div", { class: "controls" }, shuffle.el, reset.el),
      bars.root,
      html("div", { class: "readouts wide" }, sequence.el, out.el, moved.el),
      html("p", { class: "figure-note" }, t({
        zh: "若有移动，也只在第 16 位小数：那是浮点舍入，取决于加法的先后，不是注意力。",
        en: "Any movement is in the 16th decimal: floating-point rounding, which depends on the order of the additions, not attention.",
      })),
    ),
  );

  let valid = reading;
  const fig = figure(el, {
    state: { order: reading },
    clamp(s) {
      // anything that is not a permutation of the six keys leaves the order as it was
      const order = isPermutation(s.order, n) ? [...s.order] : valid;
      valid = order;
      return { order };
    },
    draw({ order }) {
      const steps = stepsInOrder(w, V, order);
      const o = steps[n - 1][1];
      path.set(steps);
      end.set(o);
      const words = order.map((j) => tokens[j]);
      bars.set({
        weights: Object.fromEntries(tokens.map((token, j) => [token, w[j]])),
        text: Object.fromEntries(tokens.map((token, j) => [token, fixed(w[j])])),
        order: words,
      });
      sequence.show(words.join(" "));
      out.show(vector(o));
      // the full-precision sum, for anyone (a test) who wants more than two decimals
      exact.dataset.exact = JSON.stringify(o);
      const shift = Math.hypot(o[0] - original[0], o[1] - original[1]);
      moved.show(shift === 0 ? "0" : scientific(shift));
    },
  });
}
