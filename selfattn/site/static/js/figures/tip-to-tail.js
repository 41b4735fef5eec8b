// F20: add the six terms w·v one at a time, tip to tail. Each is a shortened value (green),
// each points forward along the output (the purple dashed line), so the path never turns
// back; it ends at the new vector of it, the output, in purple. The plane is the walk's own
// window, zoomed until its steps read.

import { norm } from "../attention.js";
import { clampNumber, figure } from "../figure.js";
import { t } from "../i18n.js";
import { button } from "../kit/controls.js";
import { svg } from "../kit/dom.js";
import { fixed, vector } from "../kit/format.js";
import { setSvg } from "../kit/notation.js";
import { around, arrow, makePlane, named, untangle } from "../kit/plane.js";
import { stage } from "../kit/stage.js";
import { point, stepsInOrder, tipToTail } from "../weighted-sum.js";

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
  const { picture, controls, readouts } = stage(el);
  const plane = makePlane({
    zoom: 5, // the walk spans under a unit: drawn 5× the world scale, and says so
    ...around([...steps.map(([, to]) => to), o], { pad: 0.15, step: 0.25 }),
    unit: 300,
    label: t({
      zh: "六个值向量，以及 it 的六项加权首尾相接",
      en: "The six values, and the six weighted terms of it laid tip to tail",
    }),
  });
  picture.append(plane.root);
  // the direction every step moves along: the line through the output, to the plane's edge
  const { x1, y1 } = plane.bounds;
  // a little past the output, short of the corner where the zoom is said
  const reach = Math.min(x1 / forward[0], y1 / forward[1], norm(o) + 0.15) - 0.05;
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
  const output = arrow(plane, { cls: "output thin" }); // under the terms, which it sums
  const path = tipToTail(plane, n);
  const end = point(plane, { label: "o_it" });
  // every step named by its weight and its token (0.30·v_cat), beside its middle: under the
  // output's line where the walk dips under it (out of the output arrow's way), over it where
  // the walk hugs the line, which then alternates along it; the newest in bold
  const names = steps.map(([from, to], j) => {
    const name = svg("text", { class: "label value term-name", "data-token": tokens[j] }, plane.layers.labels);
    setSvg(name, `${fixed(w[j])}·v_${tokens[j]}`);
    const x = plane.sx((from[0] + to[0]) / 2),
      y = plane.sy((from[1] + to[1]) / 2);
    const mid = [(from[0] + to[0]) / 2, (from[1] + to[1]) / 2];
    const under = mid[0] * forward[1] - mid[1] * forward[0]; // how far under the line, in units
    // 1: under the line (screen down and right), −1: over it; by the origin always under, as
    // over it a phone leaves no room between the y axis and the plane's edge
    const side = under > 0.015 || norm(mid) < 0.1 ? 1 : -1;
    const off = side > 0 ? 12 : -16; // over the line a little farther: the text stands on its baseline
    name.setAttribute("x", String(x + off * forward[1]));
    name.setAttribute("y", String(y + off * forward[0] + (side > 0 ? 10 : -4)));
    name.setAttribute("text-anchor", side > 0 ? "start" : "end");
    named(name, [x, y]);
    return name;
  });
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
  // one read-out, the sum: each step's weight is its name, its heading the dashed line's
  const readout = readouts({ sum: t({ zh: "目前的和", en: "sum so far" }) }, { key: "sum" });
  const fig = figure(el, {
    state: { terms: n }, // the whole walk first, then take terms back
    clamp: (s) => ({ terms: Math.round(clampNumber(s.terms, 0, n, 0)) }),
    discrete: ["terms"],
    draw({ terms }) {
      path.set(steps, terms, terms - 1);
      const here = terms ? steps[terms - 1][1] : [0, 0];
      output.set(o);
      output.g.classList.toggle("faint", terms < n);
      end.set(terms === n ? here : null);
      names.forEach((name, j) => {
        name.style.display = j < terms ? "" : "none";
        name.classList.toggle("faint", j !== terms - 1);
      });
      untangle(plane);
      next.enable(terms < n);
      back.enable(terms > 0);
      readout.show({ sum: vector(here) });
    },
  });
}
