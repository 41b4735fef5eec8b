// F17: take the future away row by row. Every score is computed first; the mask then
// discards the ones above the diagonal, drawn dashed, and the counter keeps the tally.

import { figure, readout, t, html, clampNumber } from "../figure.js";
import { attention } from "../attention.js";
import { fixed, grouped } from "../kit/format.js";
import { makeHeatmap, legend } from "../heatmap.js";
import { button } from "../switch.js";

export default function (el, head) {
  const { S } = attention(head.X, head.W_Q, head.W_K, head.W_V);
  const n = head.tokens.length;
  const largest = Math.max(...S.flat().map(Math.abs));
  const map = makeHeatmap({
    tokens: head.tokens, name: "S",
    label: t({ zh: "缩放后的分数矩阵，被掩码丢掉的格子画成虚线", en: "The scaled scores; the ones the mask discards are dashed" }),
  });
  map.root.classList.add("scores");
  const next = button({
    label: t({ zh: "遮住下一行的未来", en: "Mask the next row" }), name: "next",
    onPress: () => fig.set({ rows: fig.state.rows + 1 }),
  });
  const back = button({
    label: t({ zh: "退回一行", en: "Put one back" }), name: "back",
    onPress: () => fig.set({ rows: fig.state.rows - 1 }),
  });
  const rows = readout("rows", t({ zh: "已处理的行", en: "rows masked" }));
  const computed = readout("computed", t({ zh: "算过的点积", en: "computed" }));
  const discarded = readout("discarded", t({ zh: "丢掉", en: "discarded" }));
  discarded.el.querySelector("output").dataset.key = ""; // the one read-out a screen reader hears change
  const kept = readout("kept", t({ zh: "留下", en: "kept" }));
  el.querySelector(".stage").append(
    map.root,
    html("div", { class: "panel" },
      html("div", { class: "controls" }, next.el, back.el),
      html("div", { class: "readouts" }, rows.el, computed.el, discarded.el, kept.el),
      legend([
        { kind: "pos", text: t({ zh: "实心：正分数", en: "filled: positive score" }) },
        { kind: "neg", text: t({ zh: "空心：负分数", en: "hollow: negative score" }) },
        { kind: "masked", text: t({ zh: "虚线：算过，又被换成 −∞", en: "dashed: computed, then set to −∞" }) },
      ]),
    ),
  );

  const fig = figure(el, {
    state: { rows: 0 },
    clamp: (s) => ({ rows: Math.round(clampNumber(s.rows, 0, n, 0)) }),
    draw({ rows: done }) {
      let gone = 0;
      const cells = S.map((line, i) => line.map((s, j) => {
        const future = i < done && j > i;
        if (future) gone += 1;
        // a discarded score's size no longer matters: its cell is drawn as the mask's dashed square
        return { size: future ? 0 : Math.abs(s) / largest, kind: future ? "masked" : s >= 0 ? "pos" : "neg", text: fixed(s) };
      }));
      map.set(cells, { row: done - 1 });
      next.enable(done < n);
      back.enable(done > 0);
      const all = cells.flat().length;
      rows.show(`${done} / ${n}`);
      computed.show(grouped(all));
      discarded.show(grouped(gone));
      kept.show(grouped(all - gone));
    },
  });
}
