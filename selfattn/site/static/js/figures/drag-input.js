// F02: drag the grey input anywhere; q, k and v follow as fixed linear maps of it, and the
// arcs show how far q and v have turned from where they started.

import { angleBetween, times } from "../attention.js";
import { clampPoint, figure } from "../figure.js";
import { t } from "../i18n.js";
import { svg } from "../kit/dom.js";
import { fixed, vector } from "../kit/format.js";
import { handle } from "../kit/handles.js";
import { arc, around, arrow, makePlane, reachOutline, ring, untangle } from "../kit/plane.js";
import { stage } from "../kit/stage.js";

const MATRICES = [
  ["q", "query", "W_Q"],
  ["k", "key", "W_K"],
  ["v", "value", "W_V"],
];

export default function (el, head) {
  const start = head.X[head.index("it")];
  // the input may go as far as the prose's nudge takes it (one unit straight up), to the
  // quarter unit, in any direction: the longest embedding's reach would put the query's rim
  // near ±5 and shrink every arrow to a third of the plane
  const reach = Math.ceil(Math.hypot(start[0], start[1] + 1) * 4) / 4;
  const rim = ring(reach);
  const maps = MATRICES.map(
    ([, , W]) =>
      (/** @type {number[]} */ x) =>
        times(x, head[W]),
  );
  const { picture, controls, readouts } = stage(el);
  const plane = makePlane({
    ...around([...rim, ...maps.flatMap((f) => rim.map(f))], { pad: 0.3 }),
    unit: 60,
    label: t({ zh: "输入和它的查询、键、值", en: "The input and its query, key and value" }),
  });
  picture.append(plane.root);
  // where the input may go and where that sends q and v: a wide oval for the query, a small
  // one for the value, the whole plane's worth of reach seen before anything is dragged
  reachOutline(plane, rim, "input");
  for (const i of [0, 2]) reachOutline(plane, rim.map(maps[i]), MATRICES[i][1]);
  // the ground each arrow has swept since the start, filled in its hue: a wide fan for the
  // query, a sliver for the value, seen before any degree is read
  const swept = ["query", "value"].map((cls) => svg("polygon", { class: `swept ${cls}` }, plane.layers.under));
  const [q0, , v0] = maps.map((f) => f(start));
  // each turn is an arc from where the arrow started, its degrees written beside it
  // (each about half its arrow's length at rest, so the arc and its degrees read at a glance,
  // out where the degrees clear the axes, the key and the input's reach)
  const turns = ["query", "value"].map((cls, i) =>
    arc(plane, { radius: [1.4, 0.9][i] * plane.unit, cls, name: `${"qv"[i]}.turn` }),
  );
  const input = arrow(plane, { cls: "input", label: "x" });
  const arrows = MATRICES.map(([name, cls]) => arrow(plane, { cls, label: name }));
  const drag = handle(plane, {
    label: t({ zh: "输入向量", en: "Input vector" }),
    get: () => fig.state.x,
    onMove: (x) => fig.set({ x }),
    home: start,
    // the prose's nudge, one unit straight up: where the arcs show the turn
    end: [start[0], start[1] + 1],
  });
  // the query and the value, the pair the prose compares (the key's arrow is drawn): for a
  // screen reader (css: F02); the eye reads the arrows and the swept ground
  const compared = MATRICES.filter(([name]) => name !== "k");
  const out = readouts(Object.fromEntries(compared.map(([name, , W]) => [name, `${name} = x${W}`])));
  controls.remove(); // the handle on the plane is the control

  const fig = figure(el, {
    state: { x: start },
    clamp: (s) => ({ x: clampPoint(s.x, reach, start) }),
    draw({ x }) {
      const now = maps.map((f) => f(x));
      input.set(x);
      now.forEach((p, i) => {
        arrows[i].set(p);
      });
      [
        [q0, now[0]],
        [v0, now[2]],
      ].forEach(([from, to], i) => {
        const degrees = angleBetween(from, to);
        // at the origin a vector has no direction, so no angle; under half a degree, no arc
        turns[i].set(degrees >= 0.5 ? from : null, to, Number.isFinite(degrees) ? `${fixed(degrees, 1)}°` : "—");
        swept[i].setAttribute("points", [[0, 0], from, to].map(([a, b]) => `${plane.sx(a)},${plane.sy(b)}`).join(" "));
      });
      drag.place(x, `x ${fixed(x[0])}, y ${fixed(x[1])}`);
      untangle(plane);
      out.show(Object.fromEntries(MATRICES.map(([name], i) => [name, vector(now[i])])));
    },
  });
}
