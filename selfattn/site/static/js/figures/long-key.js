// F07: stretch and's key; it wins row it on length alone, without ever turning.

import { angleBetween, argmax, dot } from "../attention.js";
import { clampNumber, figure } from "../figure.js";
import { t } from "../i18n.js";
import { makeBars } from "../kit/bars.js";
import { svg } from "../kit/dom.js";
import { fixed } from "../kit/format.js";
import { valueHandle } from "../kit/handles.js";
import { arc, around, arrow, makePlane, untangle } from "../kit/plane.js";
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
    ...around([Q[it], K[cat], longest], { pad: 0.6 }),
    unit: 70,
    label: t({
      zh: "it 的查询，cat 的键，和被拉长的 and 的键",
      en: "The query of it, the key of cat, and the key of and stretched",
    }),
  });
  picture.append(plane.root);
  // the road and's key tip travels as it stretches from 1× to 5×: a straight line, no turn
  svg(
    "line",
    {
      class: "road key",
      "data-token": "and",
      x1: plane.sx(K[and][0]),
      y1: plane.sy(K[and][1]),
      x2: plane.sx(longest[0]),
      y2: plane.sy(longest[1]),
    },
    plane.layers.under,
  );
  const query = arrow(plane, { cls: "query", label: "q_it" });
  const catKey = arrow(plane, { cls: "key faint", label: "k_cat" });
  const andKey = arrow(plane, { cls: "key", label: "k_and" });
  // the two angles the prose compares: and's key is further from the query than cat's, and
  // stays so however long it grows
  const degrees = (/** @type {number[]} */ k) => `${fixed(angleBetween(Q[it], k), 0)}°`;
  // cat's angle inside cat's key, and's out past its tip (1.3 units): and's arc, crossing
  // cat's key, would otherwise set its degrees beside cat's name
  const angles = [arc(plane, { radius: 38, cls: "faint" }), arc(plane, { radius: 1.3 * plane.unit })];
  const bars = makeBars(picture, {
    labels: head.tokens,
    domain: [Math.min(0, ...row), Math.max(...row, row[and] * MOST) * 1.05],
    height: 190,
    name: "score",
    reference: true, // cat's score across the row: the height and's bar must pass
    title: t({ zh: "原始分 q·k，it 那一行", en: "Raw scores q·k, row it" }),
    label: t({ zh: "it 那一行的原始分数", en: "Raw scores of row it" }),
  });
  // the stretch is dragged on the plane: and's key tip slides along its own line (a press
  // lands on the nearest point of it); the arrow keys step it by a tenth, Home and End jump
  const [tip0, tip1] = [K[and], longest].map(([a, b]) => [plane.sx(a), plane.sy(b)]);
  const road = [tip1[0] - tip0[0], tip1[1] - tip0[1]];
  const along = (/** @type {number} */ f) => (f - 1) / (MOST - 1);
  const stretch = valueHandle(plane.root, {
    label: t({ zh: "and 的键拉长到", en: "and's key stretched" }),
    min: 1,
    max: MOST,
    step: 0.1,
    page: 1,
    cls: "key",
    toPoint: (f) => [tip0[0] + road[0] * along(f), tip0[1] + road[1] * along(f)],
    fromPoint: ([a, b]) =>
      1 + ((MOST - 1) * ((a - tip0[0]) * road[0] + (b - tip0[1]) * road[1])) / (road[0] ** 2 + road[1] ** 2),
    get: () => fig.state.f,
    onMove: (f) => fig.set({ f }),
  });
  plane.layers.handles.append(stretch.el);
  controls.remove(); // the key's tip on the plane is the control
  // the two scores are the bars' own labels, the winner the washed bar: heard only (css: F07)
  const out = readouts({ winner: t({ zh: "得分最高", en: "highest score" }) }, { key: "winner" });

  const fig = figure(el, {
    state: { f: 1 },
    // the slider's own grid: tenths, so 4.4 means exactly the step the prose names
    clamp: (s) => ({ f: Math.round(clampNumber(s.f, 1, MOST, 1) * 10) / 10 }),
    draw({ f }) {
      const k = K[and].map((x) => x * f);
      const scores = row.map((r, j) => (j === and ? dot(Q[it], k) : r));
      const best = argmax(scores);
      stretch.place(f, `${fixed(f, 1)}×`);
      query.set(Q[it]);
      catKey.set(K[cat]);
      andKey.set(k, [0, 0], f === 1 ? "k_and" : `${fixed(f, 1)}× k_and`);
      angles[0].set(Q[it], K[cat], degrees(K[cat]));
      angles[1].set(Q[it], k, degrees(k));
      untangle(plane);
      bars.set(scores, { win: best, reference: { value: row[cat], label: "cat" } });
      out.show({ winner: head.tokens[best] });
    },
  });
}
