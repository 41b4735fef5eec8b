// F08: a button fills the score matrix one query's row at a time; each square grows in
// (area ∝ |score|, filled positive, hollow negative) and the dot products are counted.

import { clampNumber, figure, t } from "../figure.js";
import { button } from "../kit/controls.js";
import { grouped } from "../kit/format.js";
import { gridLegend, makeGrid } from "../kit/grid.js";
import { stage } from "../kit/stage.js";

/** The scaled score matrix (q·k/√d) as F08–F10 draw it: every |score| against the largest one. */
export function scoreGrid(parent, head, label) {
  const { S } = head.run();
  return makeGrid(parent, {
    rows: head.tokens,
    columns: head.tokens,
    name: "S",
    label,
    scale: Math.max(...S.flat().map(Math.abs)),
    titles: { rows: t({ zh: "查询", en: "queries" }), columns: t({ zh: "键", en: "keys" }) },
    // the kind of score goes beside the one number every grid prints, its reference square
    reference: {
      value: 1,
      text: t({ zh: "这个方块：q·k/√2 = 1.00", en: "this square: q·k/√2 = 1.00" }),
    },
  });
}

/** The key under F08–F10's grid: what filled and hollow mean. */
export function scoreLegend() {
  return gridLegend([
    { kind: "pos", text: t({ zh: "正分：实心", en: "positive: filled" }) },
    { kind: "neg", text: t({ zh: "负分：空心", en: "negative: hollow" }) },
  ]);
}

export default function (el, head) {
  const { tokens } = head,
    n = tokens.length;
  const { S } = head.run();
  const { picture, controls, side, readouts } = stage(el);
  const grid = scoreGrid(
    picture,
    head,
    t({ zh: "缩放后的分数矩阵 q·k/√2，按行填入", en: "The scaled score matrix q·k/√2, filled row by row" }),
  );
  const fill = button(controls, {
    label: "",
    name: "fill",
    onPress: () => fig.set({ rows: fig.state.rows < n ? fig.state.rows + 1 : 0 }),
  });
  const out = readouts(
    { dots: t({ zh: "点积次数", en: "dot products" }), rows: t({ zh: "已填的行", en: "rows filled" }) },
    { key: "dots" },
  );
  side.append(scoreLegend());

  const fig = figure(el, {
    state: { rows: 0 },
    clamp: (s) => ({ rows: Math.round(clampNumber(s.rows, 0, n, 0)) }),
    discrete: ["rows"],
    draw({ rows }) {
      // the row just filled prints its numbers; the rest are read by their squares
      grid.set(S, { row: rows - 1, shown: (i) => i < rows, numbers: (i) => i === rows - 1 });
      fill.el.textContent =
        rows < n
          ? t({ zh: `填第 ${rows + 1} 行：${tokens[rows]}`, en: `Fill row ${rows + 1}: ${tokens[rows]}` })
          : t({ zh: "清空，重新填", en: "Empty it and start again" });
      // one dot product per (query, key) pair: a filled row costs one per key
      out.show({ dots: grouped(rows * n), rows: `${rows} / ${n}` });
    },
  });
}
