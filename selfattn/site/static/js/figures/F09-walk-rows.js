// F09: step down the rows of the score matrix; each row is one query against every key.

import { argmax } from "../attention.js";
import { figure, readout, html, t, clampNumber } from "../figure.js";
import { scoreMatrix } from "../matrix.js";
import { fixed } from "../kit/format.js";

export default function (el, head) {
  const n = head.tokens.length;
  const { S, matrix, legend } = scoreMatrix(head, t({ zh: "分数矩阵，逐行查看", en: "the score matrix, one row at a time" }), { footer: true });
  const step = (by) => () => fig.set({ row: (fig.state.row + by + n) % n });
  const up = html("button", { type: "button", text: t({ zh: "↑ 上一行", en: "↑ Previous row" }) });
  const down = html("button", { type: "button", text: t({ zh: "下一行 ↓", en: "Next row ↓" }) });
  up.addEventListener("click", step(-1));
  down.addEventListener("click", step(1));
  const query = readout("row", t({ zh: "查询", en: "query" }));
  const top = readout("top", t({ zh: "最高分的键", en: "top key" }));
  const max = readout("max", t({ zh: "最高分", en: "top score" }));
  const spread = readout("spread", t({ zh: "最高 − 最低", en: "max − min" }));
  el.querySelector(".stage").append(
    matrix.root,
    html(
      "div",
      { class: "panel" },
      html("div", { class: "controls" }, up, down),
      legend,
      html("div", { class: "readouts" }, query.el, top.el, max.el, spread.el),
    ),
  );

  const fig = figure(el, {
    state: { row: 0 },
    // a row by index or by its token's name (#F09:row=it)
    clamp: (s) => ({ row: Math.round(clampNumber(head.tokens.includes(s.row) ? head.tokens.indexOf(s.row) : s.row, 0, n - 1, 0)) }),
    draw({ row }) {
      const scores = S[row];
      const best = argmax(scores);
      matrix.set(S, { row, win: [row, best], footer: true });
      query.show(head.tokens[row]);
      top.show(head.tokens[best]);
      max.show(fixed(scores[best]));
      spread.show(fixed(Math.max(...scores) - Math.min(...scores)));
    },
  });
}
