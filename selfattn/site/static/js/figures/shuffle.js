// F22: shuffle the order in which the six terms are read. The bars slide to their new
// places and the path of green terms takes another route, but the sum, taken here in the
// shuffled order, lands where it did: the purple output does not move.

import { figure } from "../figure.js";
import { t } from "../i18n.js";
import { makeBars } from "../kit/bars.js";
import { button } from "../kit/controls.js";
import { svg } from "../kit/dom.js";
import { scientific, vector } from "../kit/format.js";
import { around, makePlane, named, untangle } from "../kit/plane.js";
import { stage } from "../kit/stage.js";
import { point, stepsInOrder, tipToTail } from "../weighted-sum.js";

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
  const first = stepsInOrder(w, V, reading);
  const original = first[n - 1][1];
  const { picture, controls, readouts } = stage(el);

  // every route any order can take stays in the box between the sum of the terms' negative
  // parts and the sum of their positive parts: the window is that box, not the six values
  const terms = V.map((v, j) => v.map((c) => w[j] * c));
  const sumOf = (/** @type {(c: number) => number} */ keep) =>
    [0, 1].map((a) => terms.reduce((s, term) => s + keep(term[a]), 0));
  const plane = makePlane({
    // the walk spans under a unit: drawn 5× the world scale, as F20 draws the same walk
    zoom: 5,
    ...around([sumOf((c) => Math.min(c, 0)), sumOf((c) => Math.max(c, 0)), out[it]], {
      pad: 0.15,
      step: 0.25,
      // a quarter unit round the origin: at 5× that is 65 px, room enough that no axis stops
      // just past it; half a unit left the plane's lower third empty
      origin: 0.25,
    }),
    unit: 300,
    label: t({
      zh: "首尾相接的六项和它们的终点",
      en: "The six terms tip to tail, and where they end",
    }),
  });
  picture.append(plane.root);
  // the route in reading order, faint, under a shuffled one: two routes, one end
  const before = svg("polyline", { class: "before" }, plane.layers.under);
  const corners = [[0, 0], ...first.map((st) => st[1])];
  before.setAttribute("points", corners.map(([a, b]) => `${plane.sx(a)},${plane.sy(b)}`).join(" "));
  const path = tipToTail(plane, n);
  const end = point(plane, { label: "o_it" });
  // each term named by its token beside its middle, so the route reads in the bars' order
  const names = tokens.map((token) => {
    const name = svg("text", { class: "label value term-name", "data-token": token }, plane.layers.labels);
    name.textContent = token;
    return name;
  });
  const bars = makeBars(picture, {
    labels: tokens,
    domain: [0, Math.max(...w) * 1.15],
    name: "bar",
    // how much of each value is taken: the value hue
    kind: "weights",
    // about as tall as the plane for its width, so the two share one height with no hole;
    // on a phone, stacked under the plane, flatter, so the plane stays the larger part
    width: 320,
    height: matchMedia("(max-width: 520px)").matches ? 200 : 280,
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
      before.style.display = order.every((k, i) => k === i) ? "none" : "";
      end.set(o);
      steps.forEach(([from, to], k) => {
        const x = plane.sx((from[0] + to[0]) / 2),
          y = plane.sy((from[1] + to[1]) / 2);
        // on alternate sides of the path, so two short steps in a row never name one spot
        const side = k % 2 ? -1 : 1;
        named(names[order[k]], [x, y]);
        names[order[k]].setAttribute("x", String(x + 8 * side));
        names[order[k]].setAttribute("y", String(y + (side > 0 ? 14 : -6)));
        names[order[k]].setAttribute("text-anchor", side > 0 ? "start" : "end");
      });
      // "it" and "out" meet near the output's tip
      untangle(plane, { apart: 1 });
      bars.set(w, { order });
      const shift = Math.hypot(o[0] - original[0], o[1] - original[1]);
      // a shuffle only reorders a float sum: a shift of 10⁻¹⁶ is rounding, not a move, and prints 0
      readout.show({ output: vector(o), moved: shift < 1e-9 ? "0" : scientific(shift) });
      // the full-precision sum, for anyone (a test) who wants more than two decimals
      exact.dataset.exact = JSON.stringify(o);
    },
  });
}
