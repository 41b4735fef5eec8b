// F05: drag the query against a fixed key; the score is the shadow's length times the key's.

import { figure, readout, html, t, clampPoint } from "../figure.js";
import { makePlane, arrow, shadow, untangle, svg } from "../kit/plane.js";
import { handle } from "../kit/handles.js";
import { times, dot, norm, angleBetween } from "../attention.js";
import { fixed } from "../kit/format.js";

const BOX = [-2, 2];

export default function (el, head) {
  const key = times(head.X[head.tokens.indexOf("cat")], head.W_K);
  const start = times(head.X[head.tokens.indexOf("it")], head.W_Q);
  const plane = makePlane({ x: [-2.2, 2.2], y: [-2.2, 2.2], unit: 80, label: t({ zh: "查询在键上的影子", en: "The query's shadow on the key" }) });
  const line = svg("line", { class: "key-line" }, plane.layers.under);
  const drop = shadow(plane);
  const k = arrow(plane, { cls: "key", label: "k cat" });
  const q = arrow(plane, { cls: "query", label: "q" });
  const drag = handle(plane, { label: t({ zh: "查询向量", en: "Query vector" }), get: () => fig.state.q, onMove: (p) => fig.set({ q: p }) });
  const names = {
    shadow: t({ zh: "影子", en: "shadow" }),
    length: t({ zh: "键长", en: "key length" }),
    score: t({ zh: "分数", en: "score" }),
    angle: t({ zh: "夹角", en: "angle" }),
  };
  const out = Object.fromEntries(Object.entries(names).map(([name, label]) => [name, readout(name, label)]));
  el.querySelector(".stage").append(
    plane.root,
    html("div", { class: "panel" }, html("div", { class: "readouts" }, ...Object.values(out).map((r) => r.el))),
  );
  // the key's whole line, drawn faint both ways, so the drop always has somewhere to land
  const far = 3 / norm(key);

  const fig = figure(el, {
    state: { q: start },
    clamp: (s) => ({ q: clampPoint(s.q, BOX, BOX, start) }),
    draw({ q: qv }) {
      line.setAttribute("x1", plane.sx(-key[0] * far));
      line.setAttribute("y1", plane.sy(-key[1] * far));
      line.setAttribute("x2", plane.sx(key[0] * far));
      line.setAttribute("y2", plane.sy(key[1] * far));
      const along = drop.set(qv, key);
      k.set(key);
      q.set(qv);
      drag.place(qv, `x ${fixed(qv[0])}, y ${fixed(qv[1])}`);
      const score = dot(qv, key);
      out.shadow.show(fixed(along));
      out.length.show(fixed(norm(key)));
      out.score.show(fixed(score));
      const angle = angleBetween(qv, key);
      out.angle.show(Number.isFinite(angle) ? `${fixed(angle, 0)}°` : "—");
      el.classList.toggle("negative", score < 0);
      untangle(plane);
    },
  });
}
