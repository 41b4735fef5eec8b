// F25: the whole attention map, six rows of weights, with the causal mask on or off.
// With the mask the upper triangle is empty and it gives cat more; without, ran takes a share.

import { figure } from "../figure.js";
import { t } from "../i18n.js";
import { toggle } from "../kit/controls.js";
import { cellWeight } from "../kit/format.js";
import { gridLegend, weightMap } from "../kit/grid.js";
import { stage } from "../kit/stage.js";

export default function (el, head) {
  const { tokens } = head;
  const it = head.index("it");
  const { picture, controls, under, readouts } = stage(el);
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
  const out = readouts(
    // w(it, cat) and w(it, ran) are printed in their cells
    { masked: t({ zh: "被遮住的格子", en: "masked cells" }) },
    { key: "masked" },
  );
  under.append(
    gridLegend([
      { kind: "weight", text: t({ zh: "面积 ∝ 权重", en: "area ∝ weight" }) },
      { kind: "masked", text: t({ zh: "被遮住：权重 0", en: "masked: weight 0" }) },
    ]),
  );

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
        format: cellWeight,
        mark: (i, j) => (future(i, j) ? { masked: "0" } : null),
      });
      out.show({
        masked: String(tokens.reduce((n, _, i) => n + tokens.filter((__, j) => future(i, j)).length, 0)),
      });
    },
  });
}
