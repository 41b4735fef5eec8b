// F10: flip the score matrix over its diagonal; the squares travel to their mirror
// places, and S[cat, ate] and S[ate, cat] trade places: the matrix is not symmetric.

import { figure } from "../figure.js";
import { t } from "../i18n.js";
import { button } from "../kit/controls.js";
import { scoreGrid } from "../kit/grid.js";
import { stage } from "../kit/stage.js";

export default function (el, head) {
  const cat = head.index("cat"),
    ate = head.index("ate");
  const { S } = head.run();
  const { picture, controls, readouts } = stage(el);
  const grid = scoreGrid(picture, head, t({ zh: "分数矩阵和它的转置", en: "The score matrix and its transpose" }));
  const flip = button(controls, {
    label: t({ zh: "沿对角线转置", en: "Transpose along the diagonal" }),
    name: "transpose",
    onPress: () => fig.set({ transposed: !fig.state.transposed }),
  });
  const pair = (i, j) => (i === cat && j === ate) || (i === ate && j === cat);
  // the two scores the prose compares are printed in their ringed cells; the line answers its
  // question for a screen reader (css: F10): the traded pair shows the answer
  const out = readouts({ mirror: t({ zh: "沿对角线对称", en: "symmetric about the diagonal" }) }, { key: "mirror" });
  const symmetric = S.every((row, i) => row.every((s, j) => s === S[j][i]));

  const fig = figure(el, {
    state: { transposed: false },
    clamp: (s) => ({ transposed: s.transposed === true }),
    discrete: ["transposed"],
    draw({ transposed }) {
      grid.set(S, { transposed, diagonal: true, numbers: pair });
      // the two cells the prose compares keep a ring as they travel
      for (const cell of /** @type {NodeListOf<SVGGElement>} */ (grid.root.querySelectorAll("g.cell"))) {
        cell.classList.toggle("pair", pair(head.index(cell.dataset.row), head.index(cell.dataset.column)));
      }
      flip.el.setAttribute("aria-pressed", String(transposed));
      // the names trade hues with the flip: the rows turn from queries (orange) to keys (blue)
      el.classList.toggle("flipped", transposed);
      out.show({ mirror: symmetric ? t({ zh: "是", en: "yes" }) : t({ zh: "否：S ≠ Sᵀ", en: "no: S ≠ Sᵀ" }) });
    },
  });
}
