// F05: drag the query against a fixed key; the angle decides the shadow's sign, and the
// score is the shadow's length times the key's.

import { angleBetween, dot, norm } from "../attention.js";
import { clampPoint, figure } from "../figure.js";
import { t } from "../i18n.js";
import { svg } from "../kit/dom.js";
import { fixed } from "../kit/format.js";
import { handle } from "../kit/handles.js";
import { arc, around, arrow, clearTicks, makePlane, ring, shadow, untangle } from "../kit/plane.js";
import { stage } from "../kit/stage.js";

const NS = "http://www.w3.org/2000/svg";

/** A <text> that reads "words 0.86" with the number in a tspan carrying data-readout. */
function namedNumber(parent, words, name) {
  const text = svg("text", { class: "measure" }, parent);
  const number = document.createElementNS(NS, "tspan");
  number.dataset.readout = name;
  text.append(`${words} `, number);
  return { text, number };
}

export default function (el, head) {
  const cat = head.index("cat"),
    it = head.index("it");
  const { Q, K } = head.run();
  const key = K[cat],
    start = Q[it],
    length = norm(key);
  const unitKey = key.map((c) => c / length);
  // the query may go as far from the origin as the longer of the two arrows
  const reach = Math.max(length, norm(start));
  const rim = ring(reach);
  const { picture, controls, readouts } = stage(el);
  // as wide as a phone's column holds at × 2 (nine units): the reach's rim grazes the sides
  const side = Math.floor(reach * 4) / 4;
  const plane = makePlane({
    ...around([...rim, key], { pad: 0.2, step: 0.25 }),
    x: [-side, side],
    unit: 80,
    zoom: 2, // the reach of the query is under three units
    label: t({ zh: "查询在键上的影子", en: "The query's shadow on the key" }),
  });
  picture.append(plane.root);
  // the line at 90° to the key, where every score is zero: past it, on the side its name
  // stands, every score is negative, so the reader sees where to drag before finding it
  const { x0, x1, y0, y1 } = plane.bounds;
  const far = Math.hypot(x1 - x0, y1 - y0);
  svg(
    "line",
    {
      class: "zero-line",
      x1: plane.sx(unitKey[1] * far),
      y1: plane.sy(-unitKey[0] * far),
      x2: plane.sx(-unitKey[1] * far),
      y2: plane.sy(unitKey[0] * far),
    },
    plane.layers.under,
  );
  // the line named on itself, at whichever end of it the query is not near: crossing it is
  // where the score's sign flips (a "q·k < 0" set in the half floated by the key's line)
  // over the line at its upper end, under it at its lower one: the text runs where the line is not
  const ends = [
    [x1 - 0.15, -6],
    [x0 + 0.15, 16],
  ].map(([x, dy]) => [plane.sx(x), plane.sy((-unitKey[0] * x) / unitKey[1]) + dy]);
  const negativeName = svg("text", { class: "negative-name" }, plane.layers.backdrop);
  negativeName.textContent = "q·k = 0";
  svg(
    "line",
    {
      class: "key-line",
      x1: plane.sx(-unitKey[0] * far),
      y1: plane.sy(-unitKey[1] * far),
      x2: plane.sx(unitKey[0] * far),
      y2: plane.sy(unitKey[1] * far),
    },
    plane.layers.under,
  );
  const drop = shadow(plane);
  const bracket = svg("path", { class: "bracket" }, plane.layers.under);
  const angle = arc(plane, { radius: 30, name: "angle" });
  const k = arrow(plane, { cls: "key", label: "k_cat" });
  const q = arrow(plane, { cls: "query", label: "q" });
  const shadowLabel = namedNumber(plane.layers.labels, t({ zh: "影子", en: "shadow" }), "shadow");
  const lengthLabel = namedNumber(plane.layers.labels, t({ zh: "键长", en: "length" }), "length");
  const drag = handle(plane, {
    label: t({ zh: "查询向量", en: "Query vector" }),
    get: () => fig.state.q,
    onMove: (p) => fig.set({ q: p }),
    home: start,
    end: start.map((c) => -c), // the start turned round: the score flips sign, its size kept
  });
  const out = readouts(
    { score: t({ zh: "q·k_cat = 影子 × 键长", en: "q·k_cat = shadow × length" }) },
    { key: "score" },
  );
  controls.remove(); // the handle on the plane is the control

  /** Put a label `by` px off the key's line at `t` of the way along it, on the side `side`. */
  const place = (
    /** @type {SVGElement} */ text,
    /** @type {number} */ at,
    /** @type {number[]} */ side,
    /** @type {number} */ by,
  ) => {
    const px = plane.sx(key[0] * at) + side[0] * by,
      py = plane.sy(key[1] * at) - side[1] * by;
    text.setAttribute("x", String(px));
    text.setAttribute("y", String(py + 4));
    text.setAttribute("text-anchor", side[0] > 0.35 ? "start" : side[0] < -0.35 ? "end" : "middle");
  };

  const fig = figure(el, {
    state: { q: start },
    clamp: (s) => ({ q: clampPoint(s.q, reach, start) }),
    draw({ q: qv }) {
      const along = drop.set(qv, key);
      const end = qv[0] * unitKey[1] - qv[1] * unitKey[0] > 0 ? 1 : 0;
      negativeName.setAttribute("x", String(ends[end][0]));
      negativeName.setAttribute("y", String(ends[end][1]));
      negativeName.style.textAnchor = end ? "start" : "end";
      k.set(key);
      q.set(qv);
      const degrees = angleBetween(qv, key);
      angle.set(qv, key, Number.isFinite(degrees) ? `${fixed(degrees, 0)}°` : "—");
      // the measures go on the side of the key away from the query, where the drop is not
      const cross = key[0] * qv[1] - key[1] * qv[0];
      const away = cross > 0 ? [unitKey[1], -unitKey[0]] : [-unitKey[1], unitKey[0]];
      const off = 14,
        [ox, oy] = [away[0] * off, -away[1] * off];
      const [ax, ay] = [plane.sx(0) + ox, plane.sy(0) + oy],
        [bx, by] = [plane.sx(key[0]) + ox, plane.sy(key[1]) + oy];
      bracket.setAttribute(
        "d",
        `M ${ax - ox / 2} ${ay - oy / 2} L ${ax} ${ay} L ${bx} ${by} L ${bx - ox / 2} ${by - oy / 2}`,
      );
      // the shadow's number sits at the band's far end, just off it: where the shadow stops
      // is what it measures; the length's beyond the bracket, away from that end
      const foot = along / length;
      place(shadowLabel.text, foot, away, 26);
      // untangle looks for the free spot nearest the band's end, not nearest this first guess
      shadowLabel.text.dataset.at = `${plane.sx(key[0] * foot)},${plane.sy(key[1] * foot)}`;
      place(lengthLabel.text, foot > 0.5 ? 0.2 : 0.8, away, 30);
      shadowLabel.text.style.display = Math.abs(along) * plane.unit < 8 ? "none" : "";
      shadowLabel.number.textContent = fixed(along);
      lengthLabel.number.textContent = fixed(length);
      drag.place(qv, `x ${fixed(qv[0])}, y ${fixed(qv[1])}`);
      untangle(plane);
      clearTicks(plane, [qv, key]);
      out.show({ score: fixed(dot(qv, key)) });
    },
  });
}
