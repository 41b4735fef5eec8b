// F20: add the six terms w·v one at a time, tip to tail. Each is a shortened value (green),
// each points forward along the output (the purple line), so the path never turns back;
// it ends at the new vector of it, the output, in purple.

import { dot, norm } from "../attention.js";
import { clampNumber, figure } from "../figure.js";
import { t } from "../i18n.js";
import { button } from "../kit/controls.js";
import { svg } from "../kit/dom.js";
import { fixed, vector } from "../kit/format.js";
import { around, arrow, makePlane, untangle } from "../kit/plane.js";
import { stage } from "../kit/stage.js";
import { point, stepsInOrder, tipToTail, valueArrows } from "../weighted-sum.js";

/**
 * A value cut where it leaves the plane (a little inside its edge), or the value itself when
 * it ends on the plane. @param {ReturnType<typeof makePlane>} plane @param {number[]} v
 */
function toEdge(plane, v) {
  const { x0, x1, y0, y1 } = plane.bounds,
    inset = 0.03;
  const reach = (/** @type {number} */ c, /** @type {number} */ lo, /** @type {number} */ hi) =>
    c > 0 ? (hi - inset) / c : c < 0 ? (lo + inset) / c : Infinity;
  const t = Math.min(reach(v[0], x0, x1), reach(v[1], y0, y1));
  return t >= 1 ? v : [v[0] * t, v[1] * t];
}

export default function (el, head) {
  const { tokens } = head;
  const it = head.index("it"),
    n = tokens.length;
  const { W, V, out } = head.run();
  const w = W[it],
    o = out[it];
  const steps = stepsInOrder(
    w,
    V,
    tokens.map((_, j) => j),
  );
  const forward = o.map((x) => x / norm(o));
  const { picture, controls, readouts, note } = stage(el);
  // the plane fits the path (every running sum the buttons reach, with room for labels), so the
  // short steps fill it; the longer values run off its edge as rays along their directions
  const plane = makePlane({
    zoom: 4, // its data spans a unit or so: drawn 4× the world scale, and says so
    ...around(
      steps.map(([, to]) => to),
      { pad: 0.15, step: 0.25 },
    ),
    unit: 320,
    label: t({
      zh: "六个值向量，以及 it 的六项加权首尾相接",
      en: "The six values, and the six weighted terms of it laid tip to tail",
    }),
  });
  picture.append(plane.root);
  // the direction every step moves along: the line through the output, to the plane's edge
  const { x1, y1 } = plane.bounds;
  const reach = Math.min(x1 / forward[0], y1 / forward[1]);
  svg(
    "line",
    {
      x1: plane.sx(0),
      y1: plane.sy(0),
      x2: plane.sx(forward[0] * reach),
      y2: plane.sy(forward[1] * reach),
      class: "forward-line",
    },
    plane.layers.under,
  );
  valueArrows(plane, tokens, V).forEach((value, j) => {
    const edge = toEdge(plane, V[j]);
    if (edge === V[j]) return;
    value.set(edge);
    /** @type {SVGElement} */ (value.g.querySelector("polygon")).style.display = "none"; // no tip on the plane
  });
  const output = arrow(plane, { cls: "output thin" }); // under the terms, which it sums
  const path = tipToTail(plane, n);
  const end = point(plane, { label: "out" });
  const next = button(controls, {
    label: t({ zh: "加一项", en: "Add a term" }),
    name: "next",
    onPress: () => fig.set({ terms: fig.state.terms + 1 }),
  });
  const back = button(controls, {
    label: t({ zh: "拿掉一项", en: "Take one back" }),
    name: "back",
    onPress: () => fig.set({ terms: fig.state.terms - 1 }),
  });
  const readout = readouts(
    {
      sum: t({ zh: "目前的和", en: "sum so far" }),
      along: t({ zh: "它朝前走了", en: "its step forward" }),
    },
    { key: "sum" },
  );
  note(
    t({
      zh: "绿色：值向量和每一项 w·v；紫色：输出和它的方向。“朝前”是沿紫色虚线的分量：每一步都是正的，所以折线从不回头。",
      en: "Green: the values and each term w·v; purple: the output and its direction. “Forward” is the component along the purple dashed line: positive at every step, so the path never turns back.",
    }),
  );

  const fig = figure(el, {
    state: { terms: 0 },
    clamp: (s) => ({ terms: Math.round(clampNumber(s.terms, 0, n, 0)) }),
    discrete: ["terms"],
    draw({ terms }) {
      path.set(steps, terms, terms - 1);
      const here = terms ? steps[terms - 1][1] : [0, 0];
      output.set(terms === n ? here : null);
      end.set(terms === n ? here : null);
      untangle(plane);
      next.enable(terms < n);
      back.enable(terms > 0);
      const j = terms - 1;
      readout.show({
        sum: vector(here),
        along: terms ? fixed(dot([w[j] * V[j][0], w[j] * V[j][1]], forward)) : "—",
      });
    },
  });
}
