// F09: step down the rows of the score matrix; each row is one query against every key.
// Row it peaks under cat; row the is nearly flat. A click on a row walks to it.

import { argmax } from "../attention.js";
import { figure } from "../figure.js";
import { t } from "../i18n.js";
import { stepper, tokenIndex } from "../kit/controls.js";
import { fixed } from "../kit/format.js";
import { scoreGrid } from "../kit/grid.js";
import { stage } from "../kit/stage.js";

export default function (el, head) {
  const { tokens } = head;
  const { S } = head.run();
  const { picture, controls, readouts } = stage(el);
  const grid = scoreGrid(picture, head, t({ zh: "分数矩阵，逐行查看", en: "The score matrix, one row at a time" }));
  const walk = stepper(controls, {
    label: t({ zh: "查询（行）", en: "Query (row)" }),
    items: tokens,
    name: "row",
    onPick: (row) => fig.set({ row }),
  });
  const out = readouts(
    {
      // the ring shows the top: its key is for a screen reader (css: F09); the line the eye
      // reads is how far the row's scores stand apart, the flat row the's the least
      top: t({ zh: "最高分在这个键下", en: "top score under key" }),
      spread: t({ zh: "这一行的差距，最高 − 最低", en: "the row's spread, max − min" }),
    },
    { key: "top" },
  );
  grid.onRow((row) => fig.set({ row }));

  const fig = figure(el, {
    state: { row: 0 },
    // a row by index or by its token's name (#F09:row=it); anything else is the first
    clamp: (s) => ({ row: tokenIndex(tokens, typeof s.row === "number" ? Math.round(s.row) : s.row, 0) }),
    discrete: ["row"],
    draw({ row }) {
      const scores = S[row],
        best = argmax(scores);
      walk.show(row);
      grid.set(S, { row, win: [row, best], numbers: (i) => i === row });
      out.show({
        top: tokens[best],
        spread: fixed(Math.max(...scores) - Math.min(...scores)),
      });
    },
  });
}
