// F08: a button fills the score matrix one query's row at a time, counting dot products.

import { figure, readout, html, t, clampNumber } from "../figure.js";
import { scoreMatrix } from "../matrix.js";
import { grouped } from "../kit/format.js";

export default function (el, head) {
  const n = head.tokens.length;
  const { S, matrix, legend } = scoreMatrix(head, t({ zh: "分数矩阵，按行填入", en: "the score matrix, filled row by row" }));
  const fill = html("button", { type: "button", class: "fill" });
  fill.addEventListener("click", () => fig.set({ rows: fig.state.rows < n ? fig.state.rows + 1 : 0 }));
  const rows = readout("rows", t({ zh: "已填的行", en: "rows filled" }));
  const dots = readout("dots", t({ zh: "点积次数", en: "dot products" }));
  dots.el.querySelector("output").dataset.key = ""; // the one read-out a screen reader announces
  el.querySelector(".stage").append(
    matrix.root,
    html("div", { class: "panel" }, html("div", { class: "controls" }, fill), legend, html("div", { class: "readouts" }, rows.el, dots.el)),
  );

  const fig = figure(el, {
    state: { rows: 0 },
    clamp: (s) => ({ rows: Math.round(clampNumber(s.rows, 0, n, 0)) }),
    draw({ rows: filled }) {
      matrix.set(S, { filled: (i) => i < filled, row: filled - 1 });
      fill.textContent = filled < n
        ? t({ zh: `填第 ${filled + 1} 行：${head.tokens[filled]}`, en: `Fill row ${filled + 1}: ${head.tokens[filled]}` })
        : t({ zh: "清空，重新填", en: "Empty it and start again" });
      rows.show(`${filled} / ${n}`);
      // one dot product per (query, key) pair: a filled row costs one per key
      dots.show(grouped(filled * n));
    },
  });
}
