// F24: the whole attention map, six rows of weights, with the causal mask on or off.
// With the mask the upper triangle is empty and it gives cat more; without, ran takes a share.

import { figure, readout, t, html } from "../figure.js";
import { attention } from "../attention.js";
import { fixed } from "../numbers.js";
import { makeHeatmap, weightCells, legend, cellWeight } from "../heatmap.js";
import { toggle } from "../switch.js";


export default function (el, head) {
  const { tokens } = head;
  const it = tokens.indexOf("it"), cat = tokens.indexOf("cat"), ran = tokens.indexOf("ran");
  const runs = {
    causal: attention(head.X, head.WQ, head.WK, head.WV, "causal").W,
    none: attention(head.X, head.WQ, head.WK, head.WV, "none").W,
  };
  const map = makeHeatmap({
    tokens, name: "W",
    label: t({ zh: "注意力图：每行是一个查询分给六个键的权重", en: "The attention map: each row is one query's weights over the six keys" }),
  });
  const control = toggle({
    label: t({ zh: "因果掩码", en: "Causal mask" }), name: "causal",
    onChange: (causal) => fig.set({ causal }),
  });
  const itCat = readout("it.cat", "w(it, cat)");
  itCat.el.querySelector("output").dataset.key = ""; // the one read-out a screen reader hears change
  const itRan = readout("it.ran", "w(it, ran)");
  const masked = readout("masked", t({ zh: "被遮住的格子", en: "masked cells" }));
  const rows = readout("rows", t({ zh: "每行的和", en: "every row sums to" }));
  el.querySelector(".stage").append(
    map.root,
    html("div", { class: "panel" },
      control.el,
      html("div", { class: "readouts" }, itCat.el, itRan.el, masked.el, rows.el),
      legend([
        { kind: "pos", text: t({ zh: "方块面积 ∝ 权重", en: "square's area ∝ weight" }) },
        { kind: "masked", text: t({ zh: "虚线：被掩码遮住，权重 0", en: "dashed: masked, weight 0" }) },
      ]),
    ),
  );

  const fig = figure(el, {
    state: { causal: true },
    clamp: (s) => ({ causal: s.causal !== false }),
    draw({ causal }) {
      const W = runs[causal ? "causal" : "none"];
      const future = (i, j) => causal && j > i;
      control.show(causal);
      map.set(weightCells(W, future, cellWeight), { row: it });
      itCat.show(fixed(W[it][cat]));
      itRan.show(cellWeight(W[it][ran]));
      masked.show(String(W.flat().filter((_, k) => future(Math.floor(k / tokens.length), k % tokens.length)).length));
      const sums = W.map((row) => row.reduce((a, b) => a + b, 0));
      rows.show(sums.every((s) => fixed(s) === fixed(sums[0])) ? fixed(sums[0]) : "—");
    },
  });
}
