// F02: drag the grey input anywhere; q, k and v follow as fixed linear maps of it.

import { figure, readout, html, t, clampPoint } from "../figure.js";
import { makePlane, arrow, untangle } from "../kit/plane.js";
import { handle } from "../kit/handles.js";
import { times, angleBetween } from "../attention.js";
import { vector, fixed } from "../kit/format.js";

const BOX = [-2, 2];

/** Degrees for a read-out; at the origin a vector has no direction, so no angle. */
function degrees(d) {
  return Number.isFinite(d) ? `${fixed(d, 1)}°` : "—";
}

export default function (el, head) {
  const start = head.X[head.tokens.indexOf("it")];
  const plane = makePlane({ x: [-3, 3], y: [-3, 3], unit: 60, label: t({ zh: "输入和它的查询、键、值", en: "The input and its query, key and value" }) });
  const ghosts = ["query", "value"].map((cls) => arrow(plane, { cls: `${cls} faint` }));
  const input = arrow(plane, { cls: "input", label: "x" });
  const [q, k, v] = [["query", "q"], ["key", "k"], ["value", "v"]].map(([cls, label]) => arrow(plane, { cls, label }));
  const drag = handle(plane, {
    label: t({ zh: "输入向量", en: "Input vector" }),
    get: () => fig.state.x,
    onMove: (x) => fig.set({ x }),
  });
  const names = { x: "x", q: "q", k: "k", v: "v", "q.turn": t({ zh: "q 转过", en: "q turned" }), "v.turn": t({ zh: "v 转过", en: "v turned" }) };
  const out = Object.fromEntries(Object.entries(names).map(([name, label]) => [name, readout(name, label)]));
  el.querySelector(".stage").append(
    plane.root,
    html("div", { class: "panel" }, html("div", { class: "readouts" }, ...Object.values(out).map((r) => r.el))),
  );
  const q0 = times(start, head.W_Q), v0 = times(start, head.W_V);

  const fig = figure(el, {
    state: { x: start },
    clamp: (s) => ({ x: clampPoint(s.x, BOX, BOX, start) }),
    draw({ x }) {
      const [qx, kx, vx] = [head.W_Q, head.W_K, head.W_V].map((W) => times(x, W));
      ghosts[0].set(q0);
      ghosts[1].set(v0);
      input.set(x);
      q.set(qx);
      k.set(kx);
      v.set(vx);
      drag.place(x, `x ${fixed(x[0])}, y ${fixed(x[1])}`);
      out.x.show(vector(x));
      out.q.show(vector(qx));
      out.k.show(vector(kx));
      out.v.show(vector(vx));
      out["q.turn"].show(degrees(angleBetween(q0, qx)));
      out["v.turn"].show(degrees(angleBetween(v0, vx)));
      untangle(plane);
    },
  });
}
