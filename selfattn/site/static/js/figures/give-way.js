// F12: drag cat's scaled score in row it; the other five weights give way and Σw stays 1.
// The drag runs from ½ up: the scores chart then stands on the weights' baseline, its height
// is cat's track, not an empty band (pushing a score far down is F13's), and the knob at its
// lowest stays clear of cat's name under the baseline.

import { softmaxRow } from "../attention.js";
import { clampNumber, figure } from "../figure.js";
import { t } from "../i18n.js";
import { makeBars } from "../kit/bars.js";
import { svg } from "../kit/dom.js";
import { fixed } from "../kit/format.js";
import { valueHandle } from "../kit/handles.js";
import { stage } from "../kit/stage.js";
import { barWeight } from "../width.js";

const LOWEST = 0.5,
  HIGHEST = 4;
// scale room over the top, so the number over a knob at 4 clears the title
const ROOM = 0.7;
const HEIGHT = 210; // both charts: side by side, one baseline
const RAIL_CLEAR = 34; // over the knob: its number, lifted clear of it

export default function (el, head) {
  const it = head.index("it"),
    cat = head.index("cat");
  const row = head.run().S[it];
  const { picture, readouts } = stage(el);
  const scores = makeBars(picture, {
    labels: head.tokens,
    domain: [0, HIGHEST + ROOM],
    ticks: [0, 2, 4],
    height: HEIGHT,
    name: "s",
    title: t({ zh: "it 这一行缩放后的分数 s", en: "Scaled scores s in row it" }),
    label: t({
      zh: "it 这一行缩放后的分数，cat 那根可以拖动",
      en: "The scaled scores of row it; cat's can be dragged",
    }),
  });
  const weights = makeBars(picture, {
    labels: head.tokens,
    domain: [0, 1.1],
    ticks: [0, 0.5, 1],
    height: HEIGHT,
    name: "w",
    kind: "weights",
    outline: true, // each weight at cat's own score: the others sink under theirs as cat rises
    format: barWeight,
    title: t({ zh: "权重 w = softmax(s)；细框：拖动之前", en: "Weights w = softmax(s); outlines: before the drag" }),
    label: t({ zh: "it 这一行的权重", en: "The weights of row it" }),
  });
  // cat's track: where its score can be dragged, a press anywhere on it lands there. Unseen:
  // what shows is a thin rail through the bar's middle (a boxed track read as a second bar)
  const rail = svg(
    "line",
    { x1: scores.x(cat), x2: scores.x(cat), y1: scores.y(HIGHEST), y2: scores.y(LOWEST), class: "rail" },
    scores.frame.layers.grid,
  );
  const track = svg(
    "rect",
    {
      x: scores.x(cat) - scores.slot * 0.3,
      width: scores.slot * 0.6,
      y: scores.y(HIGHEST),
      height: scores.y(LOWEST) - scores.y(HIGHEST),
      class: "track",
    },
    scores.frame.layers.grid,
  );
  const knob = valueHandle(scores.root, {
    label: t({ zh: "cat 缩放后的分数", en: "cat's scaled score" }),
    min: LOWEST,
    max: HIGHEST,
    step: 0.1,
    page: 1,
    toPoint: (s) => [scores.x(cat), scores.y(s)],
    fromPoint: ([, y]) => scores.y.invert(y),
    onMove: (score) => fig.set({ score }),
    get: () => fig.state.score,
    hit: track,
  });
  const before = softmaxRow(row);
  const out = readouts({ sum: "Σw" }, { key: "sum" });

  const fig = figure(el, {
    state: { score: row[cat] },
    clamp: (s) => ({ score: clampNumber(s.score, LOWEST, HIGHEST, row[cat]) }),
    draw({ score: s }) {
      const values = row.map((v, j) => (j === cat ? s : v));
      const w = softmaxRow(values);
      scores.set(values, { win: cat, lift: cat, dragged: cat });
      weights.set(w, { win: cat, ghost: before });
      knob.place(s, fixed(s));
      // the rail runs from the top of the track down to just over the knob's number
      rail.setAttribute("y2", String(Math.max(scores.y(HIGHEST), scores.y(s) - RAIL_CLEAR)));
      out.show({
        sum: fixed(
          w.reduce((a, b) => a + b, 0),
          3,
        ),
      });
    },
  });
}
