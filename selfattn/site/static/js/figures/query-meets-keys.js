// F03: step through the six queries; each one's shadow falls on every key, and each score
// is that shadow times the key's length: a rectangle as tall as the shadow and as wide as
// the key is long, whose area is the score. The biggest area wins.

import { argmax } from "../attention.js";
import { figure } from "../figure.js";
import { t } from "../i18n.js";
import { axis, chart, linear, ticks, title } from "../kit/chart.js";
import { stepper, tokenIndex } from "../kit/controls.js";
import { svg } from "../kit/dom.js";
import { fixed } from "../kit/format.js";
import { marks } from "../kit/marks.js";
import { setSvg } from "../kit/notation.js";
import { around, arrow, makePlane, shadow, untangle } from "../kit/plane.js";
import { stage } from "../kit/stage.js";

const GAP = 10,
  NARROWEST = 34; // px between rectangles; the least room a key's name and score need

export default function (el, head) {
  const { tokens } = head;
  const { Q, K, R } = head.run();
  const lengths = K.map((k) => Math.hypot(...k));
  const shadows = R.map((row) => row.map((r, j) => r / lengths[j]));
  // the foot of each query's drop on its winner's key: the only shadow drawn (see draw)
  const feet = shadows.map((row, i) => {
    const j = argmax(R[i]);
    return K[j].map((c) => (c * row[j]) / lengths[j]);
  });
  const first = head.index("it");
  const { picture, controls, readouts } = stage(el);

  const plane = makePlane({
    ...around([...Q, ...K, ...feet], { pad: 0.5, step: 0.25, origin: 0.5 }),
    unit: 100,
    // the world scale: at × 2 the six queries need a plane too tall to stand beside the chart
    label: t({
      zh: "一个查询、六个键和查询的影子",
      en: "One query, six keys and its shadow",
    }),
  });
  picture.append(plane.root);
  const drops = tokens.map(() => shadow(plane));
  // every key named at its tip (the short ones' names set off on leaders by untangle), so
  // each is found, and lights with its rectangle
  const keys = tokens.map((name) => arrow(plane, { cls: "key", label: name }));
  const query = arrow(plane, { cls: "query" });

  // shadow × length, drawn: height is the shadow, width the key's length, area the score
  const frame = chart(picture, {
    // beside the plane about as tall for its width as it; stacked a little wider
    width: matchMedia("(max-width: 1099px)").matches ? 420 : 380,
    height: 250,
    cls: "areas",
    margin: { top: 58, bottom: 8, left: 34, right: 8 }, // the title and a top number, at a phone's scale
    label: t({
      zh: "分数画成矩形：高是影子，宽是键长",
      en: "Each score a rectangle: shadow tall, key length wide",
    }),
  });
  const { box, layers } = frame;
  // hung from the top by its own size: a wide chart drawn small on a phone would clip a title
  // set at a fixed height in user units
  title(
    frame,
    t({ zh: "高 = 影子，宽 = 键长，面积 = 分数", en: "height = shadow, width = key length, area = score" }),
    0,
  ).setAttribute("dy", "1em");
  const flat = shadows.flat();
  const y = linear([Math.min(0, ...flat), Math.max(0, ...flat)], [box.bottom - 18, box.top]);
  axis(frame, y, { side: "left", values: ticks(y.domain[0], y.domain[1], 3) });
  // pixels per unit of key length, with a floor under the narrowest so every name fits
  const room = box.right - box.left - GAP * (tokens.length - 1);
  let perUnit = room / lengths.reduce((a, b) => a + b, 0);
  const narrow = lengths.filter((l) => l * perUnit < NARROWEST);
  perUnit =
    (room - narrow.length * NARROWEST) / lengths.filter((l) => l * perUnit >= NARROWEST).reduce((a, b) => a + b, 0);
  const slots = lengths.map((l) => Math.max(NARROWEST, l * perUnit));
  const lefts = slots.map((_, j) => box.left + slots.slice(0, j).reduce((a, b) => a + b + GAP, 0));
  const zero = y(0);
  marks(frame, undefined, y).rule({ y: 0, cls: "baseline", layer: "marks" });
  const areas = tokens.map((name, j) => {
    const mid = lefts[j] + slots[j] / 2,
      w = lengths[j] * perUnit;
    const wash = svg(
      "rect",
      {
        x: lefts[j] - GAP / 2 + 1,
        y: box.top - 14,
        width: slots[j] + GAP - 2,
        rx: 5,
        class: "wash",
      },
      layers.grid,
    );
    // each of the key's marks names it, so pointing at one lights its arrow in the plane
    const token = { "data-token": name };
    const rect = svg("rect", { x: mid - w / 2, width: w, class: "area", ...token }, layers.marks);
    // the width is the key: its length laid along the baseline in the key's colour
    svg("line", { x1: mid - w / 2, x2: mid + w / 2, y1: zero, y2: zero, class: "key-width", ...token }, layers.marks);
    const value = svg("text", { x: mid, class: "bar-value", "data-readout": `score.${name}`, ...token }, layers.labels);
    // the key's name sits on the baseline's far side from its rectangle (draw moves it)
    const label = svg("text", { x: mid, class: "bar-label key-name", ...token }, layers.labels);
    setSvg(label, name);
    return { wash, rect, value, label };
  });

  const step = stepper(controls, {
    label: t({ zh: "查询的 token", en: "Query token" }),
    items: [...tokens],
    onPick: (token) => fig.set({ token }),
  });
  // the winner is the washed rectangle: its name is for a screen reader only (css: F03)
  const out = readouts({ winner: t({ zh: "得分最高的键", en: "highest-scoring key" }) }, { key: "winner" });

  const fig = figure(el, {
    state: { token: first },
    clamp: (s) => ({ token: tokenIndex(tokens, s.token, first) }),
    discrete: ["token"],
    draw({ token }) {
      const q = Q[token],
        row = R[token],
        best = argmax(row);
      step.show(token);
      query.set(q, [0, 0], `q_${tokens[token]}`);
      K.forEach((k, j) => {
        // only the winner's shadow is drawn: six bands and drops would crowd the origin,
        // and the rectangles below carry every other shadow
        drops[j].set(q, k);
        for (const line of [drops[j].drop, drops[j].along]) line.style.display = j === best ? "" : "none";
        keys[j].set(k);
        keys[j].g.classList.toggle("winner", j === best);
        const s = shadows[token][j],
          a = y(Math.max(0, s)),
          c = y(Math.min(0, s));
        const { wash, rect, value, label } = areas[j];
        // in em, so the gap holds at a phone's scale as well as a laptop's
        label.setAttribute("y", String(zero));
        label.setAttribute("dy", s >= 0 ? "1.15em" : "-0.45em");
        rect.setAttribute("y", String(a));
        rect.setAttribute("height", String(Math.max(0.5, c - a)));
        rect.setAttribute("class", `area ${s >= 0 ? "pos" : "neg"}${j === best ? " win" : ""}`);
        wash.style.display = j === best ? "" : "none";
        // down to just under what hangs lowest: the name under a rectangle, the number under a hollow one
        wash.setAttribute("height", String((s >= 0 ? zero : c) + 22 - (box.top - 14)));
        value.setAttribute("y", String(s >= 0 ? a : c));
        value.setAttribute("dy", s >= 0 ? "-0.4em" : "1.1em");
        value.classList.toggle("win", j === best);
        setSvg(value, fixed(row[j]));
      });
      untangle(plane);
      out.show({ winner: tokens[best] });
    },
  });
}
