// F10: flip the score matrix over its diagonal; the squares travel to their mirror
// places, and S[cat, ate] and S[ate, cat] trade places: the matrix is not symmetric.

import { figure } from "../figure.js";
import { t } from "../i18n.js";
import { button } from "../kit/controls.js";
import { fixed } from "../kit/format.js";
import { scoreGrid, scoreLegend } from "../kit/grid.js";
import { stage } from "../kit/stage.js";

export default function (el, head) {
  const cat = head.index("cat"),
    ate = head.index("ate");
  const { S } = head.run();
  const { picture, controls, side, readouts } = stage(el);
  const grid = scoreGrid(picture, head, t({ zh: "分数矩阵和它的转置", en: "The score matrix and its transpose" }));
  const flip = button(controls, {
    label: t({ zh: "沿对角线转置", en: "Transpose along the diagonal" }),
    name: "transpose",
    onPress: () => fig.set({ transposed: !fig.state.transposed }),
  });
  const pair = (i, j) => (i === cat && j === ate) || (i === ate && j === cat);
  // what sits at (row, column) on screen: after the flip, the entry from (column, row)
  const at = (row, column, transposed) => (transposed ? S[column][row] : S[row][column]);
  const out = readouts(
    {
      "cat.ate": t({ zh: "(cat, ate) 格", en: "cell (cat, ate)" }),
      "ate.cat": t({ zh: "(ate, cat) 格", en: "cell (ate, cat)" }),
    },
    { key: "cat.ate" },
  );
  side.append(scoreLegend());

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
      out.show({ "cat.ate": fixed(at(cat, ate, transposed)), "ate.cat": fixed(at(ate, cat, transposed)) });
    },
  });
}
