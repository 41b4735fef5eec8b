// F01: a row of steps installs W_Q, W_K, W_V one by one on the input of it; each adds an arrow.

import { clampNumber, figure } from "../figure.js";
import { t } from "../i18n.js";
import { choices } from "../kit/controls.js";
import { vector } from "../kit/format.js";
import { around, arrow, clearTicks, makePlane, untangle } from "../kit/plane.js";
import { stage } from "../kit/stage.js";

const ROLES = [
  ["q", "query", "W_Q"],
  ["k", "key", "W_K"],
  ["v", "value", "W_V"],
];

export default function (el, head) {
  const it = head.index("it");
  const x = head.X[it];
  const { Q, K, V } = head.run();
  const made = [Q[it], K[it], V[it]];
  const { picture, controls, readouts } = stage(el);
  const plane = makePlane({
    // the four arrows span about three units: at the world scale they would be a small knot
    // in a wide grid, so the plane draws them twice as large and says so
    ...around([x, ...made], { pad: 0.35 }),
    unit: 110,
    zoom: 2,
    label: t({ zh: "it 的输入和它的查询、键、值", en: "The input of it, and its query, key and value" }),
  });
  picture.append(plane.root);
  const input = arrow(plane, { cls: "input", label: "x" });
  // each arrow named by the matrix that made it: the picture is the read-out
  const arrows = ROLES.map(([name, cls, W]) => arrow(plane, { cls, label: `${name} = x${W}` }));
  // a step of three, named by the matrix each adds (a slider's thumb hid what its stops were)
  const installed = choices(controls, {
    legend: t({ zh: "装上", en: "Installed" }),
    name: "installed",
    options: ["0", "1", "2", "3"].map((value, n) => ({
      value,
      label: n ? `${n > 1 ? "+ " : ""}${ROLES[n - 1][2]}` : t({ zh: "无", en: "none" }),
    })),
    onInput: (n) => fig.set({ installed: Number(n) }),
  });
  // the input and the arrow installed last, with coordinates: for a screen reader (css: F01);
  // the eye reads the arrows and their names
  const formula = (i) => `${ROLES[i][0]} = x${ROLES[i][2]}`;
  const out = readouts({ x: "x", made: formula(0) });

  const fig = figure(el, {
    // at rest W_Q is in: a first look at a matrix making an arrow
    state: { installed: 1 },
    clamp: (s) => ({ installed: Math.round(clampNumber(s.installed, 0, 3, 0)) }),
    discrete: ["installed"],
    draw({ installed: n }) {
      installed.show(String(n));
      input.set(x);
      made.forEach((p, i) => {
        arrows[i].set(i < n ? p : null);
      });
      untangle(plane);
      clearTicks(plane, [x, ...made.slice(0, n)]);
      out.label("made", formula(Math.max(n - 1, 0)));
      // before any matrix, the line names the first to come (never a bare dash, which reads as
      // a minus sign)
      out.show({ x: vector(x), made: n ? vector(made[n - 1]) : t({ zh: "未装上", en: "not installed" }) });
    },
  });
}
