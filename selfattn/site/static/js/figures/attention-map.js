// F25: the whole attention map, six rows of weights, with the causal mask on or off.
// With the mask the upper triangle is empty and it gives cat more; without, ran takes a share.
// Row it prints its weights; every other cell is read by its tint and square (its number
// under the pointer), so the change the mask makes reads as a shape, not a table.

import { figure } from "../figure.js";
import { t } from "../i18n.js";
import { toggle } from "../kit/controls.js";
import { cellWeight } from "../kit/format.js";
import { weightMap } from "../kit/grid.js";
import { stage } from "../kit/stage.js";

export default function (el, head) {
  const { tokens } = head;
  const it = head.index("it");
  const { picture, controls, readouts } = stage(el);
  const map = weightMap(
    picture,
    tokens,
    t({
      zh: "注意力图：每行是一个查询分给六个键的权重",
      en: "The attention map: each row is one query's weights over the six keys",
    }),
  );
  const mask = toggle(controls, {
    label: t({ zh: "因果掩码", en: "Causal mask" }),
    name: "causal",
    onChange: (causal) => fig.set({ causal }),
  });
  // w(it, cat) and w(it, ran) are printed in row it; the count of masked cells is spoken only
  // (figures.css): the dashed triangle shows it
  const out = readouts({ masked: t({ zh: "被遮住的格子", en: "masked cells" }) }, { key: "masked" });

  const fig = figure(el, {
    state: { causal: true },
    clamp: (s) => ({ causal: s.causal !== false }),
    discrete: ["causal"],
    draw({ causal }) {
      const { W } = head.run(causal ? "causal" : "none");
      const future = (i, j) => causal && j > i;
      mask.show(causal);
      map.set(W, {
        row: it,
        numbers: (i, j) => i === it || future(i, j),
        format: cellWeight,
        mark: (i, j) => (future(i, j) ? { masked: "0" } : null),
      });
      out.show({
        masked: String(tokens.reduce((n, _, i) => n + tokens.filter((__, j) => future(i, j)).length, 0)),
      });
    },
  });
}
