// F04: mix W_Q into W_K; the two directions of one pair of words merge into one number.
// The scores are raw (q·k): the page scales them only from the score matrix on.

import { dot, mixMatrices, times } from "../attention.js";
import { clampNumber, figure } from "../figure.js";
import { t } from "../i18n.js";
import { makeBars } from "../kit/bars.js";
import { svg } from "../kit/dom.js";
import { fixed } from "../kit/format.js";
import { valueHandle } from "../kit/handles.js";
import { around, arrow, makePlane, untangle } from "../kit/plane.js";
import { stage } from "../kit/stage.js";

const PAIRS = [
  ["cat", "ate"],
  ["ate", "cat"],
]; // [who asks, whose key]

export default function (el, head) {
  const words = ["cat", "ate"];
  const x = Object.fromEntries(words.map((w) => [w, head.X[head.index(w)]]));
  const q = Object.fromEntries(words.map((w) => [w, times(x[w], head.W_Q)]));
  const keysAt = (/** @type {number} */ mix) => {
    const WK = mixMatrices(head.W_K, head.W_Q, mix);
    return Object.fromEntries(words.map((w) => [w, times(x[w], WK)]));
  };
  const scoresAt = (/** @type {number} */ mix) => {
    const k = keysAt(mix);
    return PAIRS.map(([a, b]) => dot(q[a], k[b]));
  };
  // a key moves on a straight line as the mix goes from 0 to 1: its two ends bound it
  const ends = [keysAt(0), keysAt(1)];
  const { picture, controls } = stage(el);
  const plane = makePlane({
    ...around([...Object.values(q), ...ends.flatMap(Object.values)], { pad: 0.9 }), // room for "q_ate = k_ate"
    unit: 100,
    label: t({ zh: "cat 和 ate 的查询与键", en: "The queries and keys of cat and ate" }),
  });
  picture.append(plane.root);
  // each key's road from its own map to the query's: the mix slides it along a straight line
  const roads = words.map((w) =>
    svg(
      "line",
      {
        class: "road key",
        "data-token": w,
        x1: plane.sx(ends[0][w][0]),
        y1: plane.sy(ends[0][w][1]),
        x2: plane.sx(ends[1][w][0]),
        y2: plane.sy(ends[1][w][1]),
      },
      plane.layers.under,
    ),
  );
  const arrows = words.flatMap((w) =>
    [
      ["query", "q"],
      ["key", "k"],
    ].map(([cls, name]) => ({ w, name, drawn: arrow(plane, { cls, label: `${name}_${w}` }) })),
  );
  const extremes = [...scoresAt(0), ...scoresAt(1)];
  const bars = makeBars(picture, {
    labels: PAIRS.map(([a, b]) => `q_${a}·k_${b}`),
    names: PAIRS.map((pair) => pair.join(".")),
    // two bars about as tall as the plane beside them (its data is near square), and not a
    // tower when stacked under it (the room over them is for the fused 1.64)
    width: 340,
    height: matchMedia("(max-width: 1099px)").matches ? 210 : 280,
    domain: [Math.min(0, ...extremes), Math.max(0, ...extremes)],
    // a scale on the left, so the room over the bars at rest reads as where they will climb
    ticks: [0, 1],
    title: t({ zh: "原始分 q·k", en: "raw score q·k" }),
    label: t({ zh: "两个方向的原始分", en: "The raw score in each direction" }),
  });
  // the mix is dragged on the plane: cat's key tip slides along its road (a press anywhere on
  // the road lands on the nearest point, so the road's end, on q_cat, fuses the maps in one
  // press); the arrow keys step it by tenths, Home and End go to either map
  const [from, to] = [ends[0].cat, ends[1].cat].map(([a, b]) => [plane.sx(a), plane.sy(b)]);
  const road = [to[0] - from[0], to[1] - from[1]];
  const mixer = valueHandle(plane.root, {
    label: t({ zh: "W_K 里混入的 W_Q", en: "W_Q mixed into W_K" }),
    min: 0,
    max: 1,
    step: 0.1,
    page: 0.5,
    cls: "key",
    hit: roads[0],
    toPoint: (mix) => [from[0] + road[0] * mix, from[1] + road[1] * mix],
    fromPoint: ([a, b]) => ((a - from[0]) * road[0] + (b - from[1]) * road[1]) / (road[0] ** 2 + road[1] ** 2),
    get: () => fig.state.mix,
    onMove: (mix) => fig.set({ mix: Math.round(mix * 100) / 100 }),
  });
  plane.layers.handles.append(mixer.el);
  controls.remove(); // the key's tip on the plane is the control

  const fig = figure(el, {
    state: { mix: 0 },
    clamp: (s) => ({ mix: Math.round(clampNumber(s.mix, 0, 1, 0) * 100) / 100 }),
    draw({ mix }) {
      mixer.place(mix, t({ zh: `混入 ${Math.round(mix * 100)}%`, en: `${Math.round(mix * 100)}% mixed` }));
      const k = keysAt(mix);
      for (const { w, name, drawn } of arrows) {
        // fully mixed, a word's key lies on its query: one arrow, one label for both, on the
        // key, which is drawn over the query, so the label has the colour of the arrow seen
        const same = Math.hypot(q[w][0] - k[w][0], q[w][1] - k[w][1]) * plane.unit < 20;
        const label = same ? (name === "k" ? `q_${w} = k_${w}` : "") : `${name}_${w}`;
        drawn.set(name === "q" ? q[w] : k[w], [0, 0], label);
      }
      untangle(plane);
      const scores = scoresAt(mix);
      // cat→ate's height drawn across both bars: ate→cat's gap to it is what the mix closes
      bars.set(scores, { texts: scores.map((s) => fixed(s)), reference: { value: scores[0], label: "" } });
    },
  });
}
