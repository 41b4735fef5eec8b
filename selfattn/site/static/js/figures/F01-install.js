// F01: a slider installs W_Q, W_K, W_V one by one on it's input vector.

import { figure, readout, slider, t, html, clampNumber } from "../figure.js";
import { makePlane, arrow } from "../kit/plane.js";
import { times } from "../attention.js";
import { vector } from "../kit/format.js";

const NAMES = ["q", "k", "v"];
const CLASSES = ["query", "key", "value"];
const INSTALLED = ["W_Q", "W_Q, W_K", "W_Q, W_K, W_V"];

export default function (el, head) {
  const it = head.X[head.tokens.indexOf("it")];
  const matrices = [head.W_Q, head.W_K, head.W_V];
  const plane = makePlane({ x: [-2, 2], y: [-1.5, 2], label: t({ zh: "it 的输入和它的查询、键、值", en: "it's input and its query, key and value" }) });
  const input = arrow(plane, { cls: "input", label: "x" });
  const arrows = CLASSES.map((cls, i) => arrow(plane, { cls, label: NAMES[i] }));
  const control = slider({
    label: t({ zh: "装上的矩阵个数", en: "Matrices installed" }), min: 0, max: 3, step: 1, name: "installed",
    onInput: (installed) => fig.set({ installed }),
  });
  const readouts = ["x", ...NAMES].map((name) => readout(name, name));
  el.querySelector(".stage").append(
    plane.root,
    html("div", { class: "panel" }, control.el, html("div", { class: "readouts" }, ...readouts.map((r) => r.el))),
  );

  const fig = figure(el, {
    state: { installed: 0 },
    clamp: (s) => ({ installed: Math.round(clampNumber(s.installed, 0, 3, 0)) }),
    draw({ installed }) {
      control.show(installed, installed ? INSTALLED[installed - 1] : t({ zh: "无", en: "none" }));
      input.set(it);
      readouts[0].show(vector(it));
      matrices.forEach((W, i) => {
        const on = i < installed;
        arrows[i].set(on ? times(it, W) : null);
        readouts[i + 1].show(on ? vector(times(it, W)) : "—");
      });
    },
  });
}
