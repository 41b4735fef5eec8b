// F04: mix W_Q into W_K; the two directions of one pair of words merge into one number.

import { figure, readout, slider, html, t, clampNumber } from "../figure.js";
import { makePlane, arrow, untangle } from "../kit/plane.js";
import { times, dot, mixMatrices } from "../attention.js";
import { fixed } from "../kit/format.js";

export default function (el, head) {
  const cat = head.X[head.tokens.indexOf("cat")], ate = head.X[head.tokens.indexOf("ate")];
  const root = Math.sqrt(cat.length);
  const plane = makePlane({ x: [-2.2, 1.2], y: [-1.8, 1.8], unit: 100, label: t({ zh: "cat 和 ate 的查询与键", en: "Queries and keys of cat and ate" }) });
  const arrows = {
    qCat: arrow(plane, { cls: "query", label: "q cat" }),
    qAte: arrow(plane, { cls: "query", label: "q ate" }),
    kCat: arrow(plane, { cls: "key", label: "k cat" }),
    kAte: arrow(plane, { cls: "key", label: "k ate" }),
  };
  const control = slider({
    label: t({ zh: "W_K 里混入的 W_Q", en: "W_Q mixed into W_K" }), min: 0, max: 1, step: 0.01, name: "mix",
    onInput: (mix) => fig.set({ mix }),
  });
  const out = {
    "cat.ate": readout("cat.ate", "S[cat, ate]"),
    "ate.cat": readout("ate.cat", "S[ate, cat]"),
  };
  el.querySelector(".stage").append(
    plane.root,
    html("div", { class: "panel" }, control.el, html("div", { class: "readouts" }, ...Object.values(out).map((r) => r.el))),
  );

  const fig = figure(el, {
    state: { mix: 0 },
    clamp: (s) => ({ mix: Math.round(clampNumber(s.mix, 0, 1, 0) * 100) / 100 }),
    draw({ mix }) {
      control.show(mix, `${Math.round(mix * 100)}%`);
      const WK = mixMatrices(head.W_K, head.W_Q, mix);
      const q = [times(cat, head.W_Q), times(ate, head.W_Q)];
      const k = [times(cat, WK), times(ate, WK)];
      arrows.qCat.set(q[0]);
      arrows.qAte.set(q[1]);
      arrows.kCat.set(k[0]);
      arrows.kAte.set(k[1]);
      out["cat.ate"].show(fixed(dot(q[0], k[1]) / root));
      out["ate.cat"].show(fixed(dot(q[1], k[0]) / root));
      untangle(plane);
    },
  });
}
