// F21: drag cat's raw score in the row of it, past the 8.00 the prose names (a marked point on
// its track) up to 9: the track ends just past the mark, so the scores at rest fill the chart. The weights stay positive and sum to one, so the output (purple) is a
// convex mix of the values: it closes in on cat's value and never leaves their polygon.
// Stacking layers of attention alone (each passing its outputs on as the next one's inputs
// and values) nests a polygon inside the last, drawn as nested fills on a plane zoomed to the
// values' polygon, each named with its span, until the six tokens are one point.

import { softmaxRow, spread, stackedAlone, weightedSum } from "../attention.js";
import { clampNumber, figure } from "../figure.js";
import { t } from "../i18n.js";
import { makeBars } from "../kit/bars.js";
import { choices } from "../kit/controls.js";
import { svg } from "../kit/dom.js";
import { fixed, percent, vector, weight } from "../kit/format.js";
import { valueHandle } from "../kit/handles.js";
import { setSvg } from "../kit/notation.js";
import { around, arrow, makePlane, named, untangle } from "../kit/plane.js";
import { stage } from "../kit/stage.js";
import { convexHull, point, polygon, reshape, valueArrows } from "../weighted-sum.js";

// no score needs to go under zero here: the names stand at the baseline, under the knob
const LOW = 0.5,
  // just past the prose's 8.00: no wall at the mark, and no empty chart over it
  HIGH = 9;
// a drag this close to the named score rests on it (2 px on the phone's track)
const DETENT = 0.25;
// by the third layer alone the six tokens are one point
const LAYERS = [1, 2, 3];

/** @param {HTMLElement} el @param {import("../kit/head.js").Head} head @param {import("../kit/head.js").Article} article */
export default function (el, head, article) {
  // the raw score the prose pushes cat to
  const NAMED = article.namedRaw;
  const { tokens } = head;
  const it = head.index("it"),
    cat = head.index("cat");
  const { R, V } = head.run();
  const root2 = Math.sqrt(head.d);
  const hull = convexHull(V);
  const { picture, controls, readouts } = stage(el);

  const reach = around(V, { pad: 0.25, step: 0.25, origin: 0.5 });
  // room past the corner of cat for the names of the polygons, on a phone too
  reach.x[1] += 1.5;
  const plane = makePlane({
    // the polygon spans two units: drawn 2× the world scale, and says so
    zoom: 2,
    ...reach,
    unit: 150,
    label: t({ zh: "值向量围成的多边形，和 it 的输出", en: "The polygon of the values, and the output of it" }),
  });
  picture.append(plane.root);
  polygon(plane, hull);
  // one polygon for the six outputs of each stacked layer, and their six dots
  const layerHulls = LAYERS.map((k) => polygon(plane, [], `hull layer layer-${k}`));
  valueArrows(plane, tokens, V);
  const dots = tokens.map(() => svg("circle", { r: 3, class: "layer-dot" }, plane.layers.under));
  const path = arrow(plane, { cls: "output thin" });
  const output = point(plane, { label: "o_it" });
  // each polygon named with its span, the values under their lower edge, the layers a line under that
  const spreadLabel = (/** @type {string} */ cls) => svg("text", { class: `label spread ${cls}` }, plane.layers.labels);
  const valuesLabel = spreadLabel("value");
  const layerLabels = LAYERS.map((k) => spreadLabel(`output layer-${k}`));
  const at = (/** @type {SVGTextElement} */ label, /** @type {number[]} */ p) => {
    named(label, [plane.sx(p[0]), plane.sy(p[1])]);
    label.setAttribute("x", String(plane.sx(p[0]) + 10));
    label.setAttribute("y", String(plane.sy(p[1]) + 4));
  };

  const bars = makeBars(picture, {
    labels: tokens,
    // room over the top for its number
    domain: [0, HIGH + 0.9],
    name: "raw",
    // beside the plane (wide pages) as tall as it; under it on a phone, short enough that both,
    // the controls and the caption fit one screen
    ...(matchMedia("(max-width: 1099px)").matches
      ? { height: 190, width: 300 } // drawn at its design size: the knob stays a fingertip
      : // wide enough for its title at the height of the plane
        { height: 340, width: 400 }),
    reference: true,
    // cat's bar is dragged through zero: its name stays clear of the knob
    knob: true,
    ticks: [0, 2, 4, 6, 8],
    title: t({
      zh: "it 这一行的原始分 q·k（÷√2 后才进 softmax）",
      en: "Raw scores q·k in the row of it (÷√2 before softmax)",
    }),
    label: t({
      zh: "it 这一行的原始分；cat 的柱子可拖",
      en: "Row it's raw scores; cat's bar can be dragged",
    }),
  });
  const { y } = bars,
    x = bars.x(cat);
  const track = svg(
    "rect",
    {
      x: x - bars.slot * 0.4,
      width: bars.slot * 0.8,
      y: y(HIGH) - 8,
      // ends at the baseline, clear of the names
      height: y(LOW) - y(HIGH) + 8,
      rx: 6,
      class: "track",
    },
    bars.frame.layers.grid,
  );
  const knob = valueHandle(bars.root, {
    label: t({ zh: "cat 的原始分数", en: "cat's raw score" }),
    min: LOW,
    max: HIGH,
    step: 0.1,
    hit: track,
    toPoint: (v) => [x, y(v)],
    fromPoint: ([, py]) => {
      const v = y.invert(py);
      return Math.abs(v - NAMED) < DETENT ? NAMED : Math.round(v * 100) / 100;
    },
    onMove: (raw) => fig.set({ raw }),
    get: () => fig.state.raw,
  });
  const layerChoice = choices(controls, {
    legend: t({ zh: "只叠注意力层，中间没有 MLP", en: "Attention layers, no MLP between" }),
    name: "layers",
    options: LAYERS.map((k) => ({ value: String(k), label: String(k) })),
    onInput: (v) => fig.set({ layers: Number(v) }),
  });
  const out = readouts(
    {
      output: t({ zh: "输出（第 1 层）", en: "output, layer 1" }),
      gap: t({ zh: "离 v(cat) 还差", en: "gap to v(cat)" }),
    },
    { key: "output" },
  );
  const fig = figure(el, {
    state: { raw: R[it][cat], layers: 1 },
    clamp: (s) => ({
      raw: clampNumber(s.raw, LOW, HIGH, R[it][cat]),
      layers: clampNumber(Math.round(s.layers), 1, LAYERS.length, 1),
    }),
    discrete: ["layers"],
    draw({ raw, layers }) {
      const row = R[it].map((v, j) => (j === cat ? raw : v));
      const w = softmaxRow(row.map((v) => v / root2));
      const [o] = weightedSum([w], V);
      bars.set(row, { dragged: cat, lift: cat, reference: { value: NAMED, label: fixed(NAMED) } });
      knob.place(raw, fixed(raw));
      path.set(o);
      output.set(o);
      const outs = head.run().out.map((row, i) => (i === it ? o : row));
      const stack = stackedAlone(outs, head.W_Q, head.W_K, layers);
      layerHulls.forEach((shape, k) => {
        const shown = k < layers;
        shape.style.display = shown ? "" : "none";
        if (shown) reshape(plane, shape, convexHull(stack[k]));
      });
      stack[layers - 1].forEach(([a, b], i) => {
        dots[i].setAttribute("cx", String(plane.sx(a)));
        dots[i].setAttribute("cy", String(plane.sy(b)));
      });
      layerChoice.show(String(layers));
      // the span of each polygon shown: the values' under its lower edge, the layers' a line
      // under that: the first, and past it only the deepest (a point by now)
      const [values, ...deeper] = [spread(V), ...stack.map(spread)].map((x) => weight(x, 2));
      setSvg(valuesLabel, t({ zh: `值向量 跨度 ${values}`, en: `values, span ${values}` }));
      // past the polygon's right-most corner, over cat's, where out and cat are named: the
      // layers' own corners sit on out, cat and the arrows, and their left reaches over the axis
      const edge = [Math.max(...hull.map((p) => p[0])) + 0.3, 1.6];
      at(valuesLabel, edge);
      layerLabels.forEach((label, k) => {
        const shown = k === 0 ? layers >= 1 : k === layers - 1;
        label.style.display = shown ? "" : "none";
        if (!shown) return;
        setSvg(label, t({ zh: `第 ${k + 1} 层 ${deeper[k]}`, en: `layer ${k + 1}, ${deeper[k]}` }));
        // a line under the name of the values, and the deepest one more
        at(label, edge);
        label.setAttribute("dy", `${k === 0 ? 1.25 : 2.5}em`);
      });
      // out, it and cat meet at cat's tip: kept apart there
      untangle(plane, { apart: 0.6 });
      const gap = Math.hypot(o[0] - V[cat][0], o[1] - V[cat][1]) / Math.hypot(...V[cat]);
      out.show({
        output: vector(o),
        gap: percent(gap),
      });
    },
  });
}
