// F08: a button fills the score matrix one query's row at a time; each square grows in
// (area ∝ |score|, filled positive, hollow negative) and the dot products are counted.
// Clicking a row fills the matrix down to it; the caption says what filled and hollow mean.

import { clampNumber, figure } from "../figure.js";
import { t } from "../i18n.js";
import { button } from "../kit/controls.js";
import { grouped } from "../kit/format.js";
import { scoreGrid } from "../kit/grid.js";
import { stage } from "../kit/stage.js";

export default function (el, head) {
  const { tokens } = head,
    n = tokens.length;
  const { S } = head.run();
  const { picture, controls, readouts } = stage(el);
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
  grid.onRow((i) => fig.set({ rows: i + 1 }));
  const out = readouts({ dots: t({ zh: "点积次数", en: "dot products" }) }, { key: "dots" });

  const fig = figure(el, {
    // at rest the first row is in, its numbers printed: the reader sees what a row is before
    // pressing (an empty grid said nothing)
    state: { rows: 1 },
    clamp: (s) => ({ rows: Math.round(clampNumber(s.rows, 0, n, 1)) }),
    discrete: ["rows"],
    draw({ rows }) {
      // the row just filled prints its numbers; the rest are read by their squares
      grid.set(S, { row: rows - 1, shown: (i) => i < rows, numbers: (i) => i === rows - 1 });
      fill.el.textContent =
        rows < n
          ? t({ zh: `填第 ${rows + 1} 行：${tokens[rows]}`, en: `Fill row ${rows + 1}: ${tokens[rows]}` })
          : t({ zh: "清空，重新填", en: "Empty it and start again" });
      // one dot product per (query, key) pair: a filled row costs one per key
      out.show({ dots: grouped(rows * n) });
    },
  });
}
