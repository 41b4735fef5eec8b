// F29: why two heads. Two heads read "the cat ate and it ran": head 1 (the head F27 trains)
// puts row it on cat, head 2 (turned by position, as in F28) on and, the word before; one
// row of weights could not do both. Each head's output goes through its half of W_O, and
// the two parts laid tip to tail make the output of it. A switch per head: a head off adds
// nothing, and its part is drawn dashed from where the output now stands to where it stood,
// so what the output loses is on the plane. heads.js (the mirror of heads.py) does the maths.

import { argmax } from "../attention.js";
import { figure } from "../figure.js";
import { join } from "../heads.js";
import { t } from "../i18n.js";
import { makeBars } from "../kit/bars.js";
import { toggle } from "../kit/controls.js";
import { html } from "../kit/dom.js";
import { vector } from "../kit/format.js";
import { around, arrow, makePlane, named, untangle } from "../kit/plane.js";
import { stage } from "../kit/stage.js";

// a phone's column: the plane's labels at their own size there
const PLANE_WIDTH = 360;
// two rows side by side in a phone's column
const BAR_WIDTH = 180;
const NAMES = [
  { zh: "头 1", en: "head 1" },
  { zh: "头 2", en: "head 2" },
];

/**
 * @param {HTMLElement} el @param {import("../kit/head.js").Head} head
 * @param {unknown} _article @param {unknown} _training @param {unknown} _task
 * @param {import("../heads.js").TwoHeads} heads
 */
export default function (el, head, _article, _training, _task, heads) {
  const it = head.index("it");
  // what row it may read under the causal mask
  const read = head.tokens.slice(0, it + 1);
  const both = join(head.X, heads);
  const parts = both.parts.map((p) => p[it]);
  const { picture, controls, readouts } = stage(el);

  const rows = html("div", { class: "rows" });
  picture.append(rows);
  const bars = [0, 1].map((h) =>
    makeBars(rows, {
      labels: read,
      domain: [0, 1],
      name: `h${h + 1}`,
      // how much of each value the head takes: the value hue
      kind: "weights",
      height: 150,
      width: BAR_WIDTH,
      title: t(
        h === 0
          ? { zh: "头 1 的 it 行", en: "head 1, row it" }
          : { zh: "头 2 的 it 行（按位置转）", en: "head 2, row it (turned)" },
      ),
      label: t(
        h === 0
          ? { zh: "头 1（F27 训练出的头）里 it 这一行的权重", en: "Row it's weights in head 1, the head F27 trains" }
          : {
              zh: "头 2（按位置转动查询和键）里 it 这一行的权重",
              en: "Row it's weights in head 2, which turns its queries and keys by position",
            },
      ),
    }),
  );

  // every point the output can reach: either part alone, both, or none
  const reach = around([parts[0], parts[1], [parts[0][0] + parts[1][0], parts[0][1] + parts[1][1]]], {
    pad: 0.3,
    step: 0.25,
  });
  const plane = makePlane({
    // the parts span a unit and a half (5× passes 640 px)
    zoom: 2,
    ...reach,
    unit: PLANE_WIDTH / (reach.x[1] - reach.x[0]),
    label: t({
      zh: "两个头的部分首尾相接成 it 的输出；关掉的头画成虚线",
      en: "The two heads' parts tip to tail make the output of it; a head off is dashed",
    }),
  });
  picture.append(plane.root);
  const whole = arrow(plane, { cls: "output faint" });
  const pieces = [0, 1].map((h) => arrow(plane, { cls: "value part", label: t(NAMES[h]) }));
  const output = arrow(plane, { cls: "output", label: "o_it" });
  // o_it is named at its shaft's middle: its tip is head 2's tip, where the two heads overlap
  const outputName = /** @type {SVGTextElement} */ (plane.layers.labels.lastElementChild);

  const switches = [0, 1].map((h) =>
    toggle(controls, {
      label: t(h === 0 ? { zh: "头 1", en: "Head 1" } : { zh: "头 2", en: "Head 2" }),
      name: `h${h + 1}`,
      onChange: (on) => fig.set(h === 0 ? { h1: on } : { h2: on }),
    }),
  );
  const out = readouts({ output: t({ zh: "it 的输出", en: "output of it" }) }, { key: "output" });

  const fig = figure(el, {
    state: { h1: true, h2: true },
    clamp: (s, previous) => ({
      h1: typeof s.h1 === "boolean" ? s.h1 : previous.h1,
      h2: typeof s.h2 === "boolean" ? s.h2 : previous.h2,
    }),
    discrete: ["h1", "h2"],
    draw({ h1, h2 }) {
      const on = [h1, h2];
      const now = join(head.X, heads, on).output[it];
      // the parts that are on from the origin, then the ones that are off, dashed, from the
      // output to where it stands with both: the way back is what the output lost
      const order = [0, 1].filter((h) => on[h]).concat([0, 1].filter((h) => !on[h]));
      let from = [0, 0];
      for (const h of order) {
        const to = [from[0] + parts[h][0], from[1] + parts[h][1]];
        pieces[h].set(to, from);
        pieces[h].g.classList.toggle("lost", !on[h]);
        pieces[h].g.classList.toggle("faint", !on[h]);
        from = to;
      }
      whole.set(h1 && h2 ? null : from);
      output.set(h1 || h2 ? now : null);
      const [mx, my] = [plane.sx(now[0] / 2), plane.sy(now[1] / 2)];
      named(outputName, [mx, my]);
      outputName.setAttribute("x", String(mx - 6));
      outputName.setAttribute("y", String(my - 6));
      outputName.setAttribute("text-anchor", "end");
      bars.forEach((b, h) => {
        const row = both.weights[h][it].slice(0, it + 1);
        // a head switched off keeps no wash: its faded bars on the amber turned khaki
        b.set(row, { win: on[h] ? argmax(row) : -1 });
        b.root.classList.toggle("off", !on[h]);
        switches[h].show(on[h]);
      });
      untangle(plane);
      out.show({ output: vector(now) });
    },
  });
}
