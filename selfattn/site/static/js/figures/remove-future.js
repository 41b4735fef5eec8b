// F17: take the future away row by row. Every score is computed first; the mask then
// replaces the ones above the diagonal by −∞, each left as a small dashed box with the
// score it threw away greyed and struck through (printed in the row just masked, under the
// pointer elsewhere), while the counter keeps the tally. A click on a row masks down to it.

import { clampNumber, figure } from "../figure.js";
import { t } from "../i18n.js";
import { button } from "../kit/controls.js";
import { grouped } from "../kit/format.js";
import { scoreGrid } from "../kit/grid.js";
import { stage } from "../kit/stage.js";

export default function (el, head) {
  const { tokens } = head;
  const { S } = head.run();
  const n = tokens.length,
    all = n * n;
  const { picture, controls, readouts } = stage(el);
  // the same matrix as fill-matrix–transpose, so the mask reads as one change to it
  const map = scoreGrid(
    picture,
    head,
    t({
      zh: "缩放后的分数矩阵；被掩码丢掉的格子只剩虚线框和 −∞",
      en: "The scaled scores; the ones the mask discards become a dashed box with −∞",
    }),
  );
  map.onRow((i) => fig.set({ rows: i + 1 }));
  // back first, forward last: the row reads as a step back and a step on
  const back = button(controls, {
    label: t({ zh: "退回一行", en: "Put one back" }),
    name: "back",
    onPress: () => fig.set({ rows: fig.state.rows - 1 }),
  });
  const next = button(controls, {
    label: t({ zh: "遮住下一行的未来", en: "Mask the next row" }),
    name: "next",
    onPress: () => fig.set({ rows: fig.state.rows + 1 }),
  });
  const out = readouts(
    {
      discarded: t({ zh: "算了又丢掉", en: "computed, then discarded" }),
      kept: t({ zh: "留下", en: "kept" }),
    },
    { key: "discarded" },
  );

  const fig = figure(el, {
    // three rows masked at rest: the first look shows what the mask does
    state: { rows: 3 },
    clamp: (s) => ({ rows: Math.round(clampNumber(s.rows, 0, n, 0)) }),
    discrete: ["rows"],
    draw({ rows: done }) {
      const future = (i, j) => i < done && j > i;
      const gone = S.reduce((sum, line, i) => sum + line.filter((_, j) => future(i, j)).length, 0);
      map.set(S, {
        row: done - 1,
        numbers: (i) => i === done - 1,
        mark: (i, j) => (future(i, j) ? { masked: "−∞", greyed: true } : null),
      });
      next.enable(done < n);
      back.enable(done > 0);
      out.show({ discarded: grouped(gone), kept: grouped(all - gone) });
    },
  });
}
