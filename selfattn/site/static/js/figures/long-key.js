// F07: stretch and's key; it wins row it on length alone, without ever turning.

import { argmax, dot } from "../attention.js";
import { clampNumber, figure } from "../figure.js";
import { t } from "../i18n.js";
import { makeBars } from "../kit/bars.js";
import { slider } from "../kit/controls.js";
import { fixed } from "../kit/format.js";
import { around, arrow, makePlane, untangle } from "../kit/plane.js";
import { stage } from "../kit/stage.js";

const MOST = 5;

export default function (el, head) {
  const it = head.index("it"),
    and = head.index("and"),
    cat = head.index("cat");
  const { Q, K, R } = head.run();
  const row = R[it];
  const longest = K[and].map((x) => x * MOST);
  const { picture, controls, readouts } = stage(el);
  const plane = makePlane({
    zoom: 2, // its data spans a few units: drawn 2× the world scale, and says so
    ...around([Q[it], K[cat], longest], { pad: 0.45 }),
    unit: 70,
    label: t({
      zh: "it 的查询，cat 的键，和被拉长的 and 的键",
      en: "The query of it, the key of cat, and the key of and stretched",
    }),
  });
  picture.append(plane.root);
  const query = arrow(plane, { cls: "query", label: "q_it" });
  const catKey = arrow(plane, { cls: "key faint", label: "k_cat" });
  const andKey = arrow(plane, { cls: "key", label: "k_and" });
  const bars = makeBars(picture, {
    labels: head.tokens,
    domain: [Math.min(0, ...row), Math.max(...row, row[and] * MOST) * 1.05],
    height: 190,
    name: "score",
    reference: true,
    title: t({ zh: "it 那一行的原始分 q·k", en: "Raw scores q·k in the row of it" }),
    label: t({ zh: "it 那一行的原始分数", en: "Raw scores of row it" }),
  });
  const stretch = slider(controls, {
    label: t({ zh: "and 的键拉长到", en: "and's key stretched" }),
    min: 1,
    max: MOST,
    step: 0.1,
    name: "stretch",
    onInput: (f) => fig.set({ f }),
  });
  // the two scores are the bars' own labels
  const out = readouts({ winner: t({ zh: "得分最高", en: "highest score" }) }, { key: "winner" });

  const fig = figure(el, {
    state: { f: 1 },
    // the slider's own grid: tenths, so 4.4 means exactly the step the prose names
    clamp: (s) => ({ f: Math.round(clampNumber(s.f, 1, MOST, 1) * 10) / 10 }),
    draw({ f }) {
      const k = K[and].map((x) => x * f);
      const scores = row.map((r, j) => (j === and ? dot(Q[it], k) : r));
      const best = argmax(scores);
      stretch.show(f, `${fixed(f, 1)}×`);
      query.set(Q[it]);
      catKey.set(K[cat]);
      andKey.set(k);
      untangle(plane);
      bars.set(scores, { win: best, reference: { value: row[cat], label: "cat" } });
      out.show({ winner: head.tokens[best] });
    },
  });
}
