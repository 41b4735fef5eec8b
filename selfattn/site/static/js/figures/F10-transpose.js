// F10: flip the score matrix over its diagonal; S[cat, ate] and S[ate, cat] trade places.

import { figure, readout, html, t } from "../figure.js";
import { scoreMatrix } from "../matrix.js";
import { fixed } from "../kit/format.js";

export default function (el, head) {
  const cat = head.tokens.indexOf("cat"), ate = head.tokens.indexOf("ate");
  const { S, matrix, legend } = scoreMatrix(head, t({ zh: "分数矩阵和它的转置", en: "the score matrix and its transpose" }));
  const flip = html("button", { type: "button", "aria-pressed": "false", text: t({ zh: "转置", en: "Transpose" }) });
  flip.addEventListener("click", () => fig.set({ transposed: !fig.state.transposed }));
  // what sits at (row, column) on screen: after the flip, the entry from (column, row)
  const shown = (row, column, transposed) => (transposed ? S[column][row] : S[row][column]);
  const catAte = readout("cat.ate", t({ zh: "cat 行 ate 列", en: "row cat, col ate" }));
  const ateCat = readout("ate.cat", t({ zh: "ate 行 cat 列", en: "row ate, col cat" }));
  el.querySelector(".stage").append(
    matrix.root,
    html("div", { class: "panel" }, html("div", { class: "controls" }, flip), legend, html("div", { class: "readouts single" }, catAte.el, ateCat.el)),
  );

  const fig = figure(el, {
    state: { transposed: false },
    clamp: (s) => ({ transposed: s.transposed === true }),
    draw({ transposed }) {
      const pair = [[cat, ate], [ate, cat]];
      matrix.set(S, { transposed, marked: pair, values: (i, j) => pair.some(([a, b]) => a === i && b === j) });
      flip.setAttribute("aria-pressed", String(transposed));
      catAte.show(fixed(shown(cat, ate, transposed)));
      ateCat.show(fixed(shown(ate, cat, transposed)));
    },
  });
}
