// F20: add the six terms w_j·v_j one at a time, tip to tail. Each is a shortened value,
// each points forward along the output, so the path never turns back; it ends at it's new vector.

import { figure, readout, t, html, clampNumber } from "../figure.js";
import { makePlane, svg } from "../kit/plane.js";
import { attention, dot, norm } from "../attention.js";
import { fixed, vector } from "../kit/format.js";
import { button } from "../switch.js";
import { valueArrows, tipToTail, stepsInOrder, point } from "../weighted-sum.js";

export default function (el, head) {
  const { tokens } = head;
  const it = tokens.indexOf("it");
  const { W, V, out } = attention(head.X, head.W_Q, head.W_K, head.W_V);
  const w = W[it], n = tokens.length;
  const steps = stepsInOrder(w, V, tokens.map((_, j) => j));
  const forward = out[it].map((x) => x / norm(out[it]));
  const plane = makePlane({
    x: [-0.3, 1.6], y: [-0.3, 1.9], unit: 160, grid: 0.5,
    label: t({ zh: "六个值向量，以及 it 的六项加权首尾相接", en: "The six values, and it's six weighted terms laid tip to tail" }),
  });
  // the direction every step moves along: the line through the final output
  const { x1, y1 } = plane.bounds;
  const reach = Math.min(x1 / forward[0], y1 / forward[1]);
  svg("line", {
    x1: plane.sx(0), y1: plane.sy(0), x2: plane.sx(forward[0] * reach), y2: plane.sy(forward[1] * reach), class: "forward-line",
  }, plane.layers.under);
  valueArrows(plane, tokens, V, { cls: "value faint" });
  const path = tipToTail(plane, n);
  const end = point(plane, { label: "out", cls: "output-point" });
  const at = point(plane, { cls: "partial-point" });
  const next = button({
    label: t({ zh: "加一项", en: "Add a term" }), name: "next",
    onPress: () => fig.set({ terms: fig.state.terms + 1 }),
  });
  const back = button({
    label: t({ zh: "拿掉一项", en: "Take one back" }), name: "back",
    onPress: () => fig.set({ terms: fig.state.terms - 1 }),
  });
  const count = readout("terms", t({ zh: "已加的项", en: "terms added" }));
  const last = readout("term", t({ zh: "刚加的项", en: "last term" }));
  const along = readout("along", t({ zh: "这一步朝前走了", en: "its step forward" }));
  const sum = readout("sum", t({ zh: "目前的和", en: "sum so far" }));
  sum.el.querySelector("output").dataset.key = ""; // the one read-out a screen reader hears change
  el.querySelector(".stage").append(
    plane.root,
    html("div", { class: "panel" },
      html("div", { class: "controls" }, next.el, back.el),
      html("div", { class: "readouts wide" }, count.el, last.el, along.el, sum.el),
      html("p", { class: "figure-note" }, t({
        zh: "“朝前”是沿着最终输出方向的分量：每一步都是正的，所以折线从不回头。",
        en: "“Forward” is the component along the final output: positive at every step, so the path never turns back.",
      })),
    ),
  );

  const fig = figure(el, {
    state: { terms: 0 },
    clamp: (s) => ({ terms: Math.round(clampNumber(s.terms, 0, n, 0)) }),
    draw({ terms }) {
      const done = steps.slice(0, terms);
      path.set(done, terms - 1);
      const here = terms ? done[terms - 1][1] : [0, 0];
      end.set(terms === n ? here : null);
      at.set(terms && terms < n ? here : null);
      next.enable(terms < n);
      back.enable(terms > 0);
      count.show(`${terms} / ${n}`);
      if (terms) {
        const j = terms - 1;
        const step = [w[j] * V[j][0], w[j] * V[j][1]];
        last.show(`${fixed(w[j])} · v(${tokens[j]})`);
        along.show(fixed(dot(step, forward)));
      } else {
        last.show("—");
        along.show("—");
      }
      sum.show(vector(here));
    },
  });
}
