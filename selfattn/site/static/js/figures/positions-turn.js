// F28: positions as a turn. Rotary position embedding in two dimensions turns the query and
// the key at position p by p·θ. The query of it (position 4) and the key of cat (position 1)
// turn by different angles, so the angle between them grows by (4 − 1)·θ and the score
// changes; shift both positions together and each turns further, but the angle between them,
// and so the score, stays exactly where it was: the score depends only on m − n.

import { angleBetween, applyMask, dot, softmax, turn } from "../attention.js";
import { clampNumber, figure } from "../figure.js";
import { t } from "../i18n.js";
import { makeBars } from "../kit/bars.js";
import { slider } from "../kit/controls.js";
import { fixed, grouped } from "../kit/format.js";
import { dragWith } from "../kit/handles.js";
import { arc, arrow, clearTicks, makePlane, untangle } from "../kit/plane.js";
import { stage } from "../kit/stage.js";

const PLANE_WIDTH = 340;
// radians: half a turn a position, as far as a turn can tell apart
const THETA_MAX = 3.14;
// the slider's step; θ keeps two decimals
const THETA_STEP = 0.01;

/** @param {HTMLElement} el @param {import("../kit/head.js").Head} head @param {import("../kit/head.js").Article} article */
export default function (el, head, article) {
  const { tokens } = head;
  const it = head.index("it"),
    cat = head.index("cat");
  const { Q, K } = head.run();
  // what row it may read under the causal mask
  const seen = tokens.slice(0, it + 1);
  const lastShift = article.turnShift;
  const rootD = Math.sqrt(head.d);

  /** Row it's raw scores and causal weights with every position p turned by (p + shift)·θ. */
  function turned(/** @type {number} */ theta, /** @type {number} */ shift) {
    const q = Q.map((v, p) => turn(v, (p + shift) * theta));
    const k = K.map((v, p) => turn(v, (p + shift) * theta));
    const R = q.map((a) => k.map((b) => dot(a, b)));
    const W = softmax(
      applyMask(
        R.map((row) => row.map((r) => r / rootD)),
        "causal",
      ),
    );
    return { q: q[it], k: k[cat], raw: R[it][cat], row: W[it].slice(0, it + 1) };
  }
  // no positions: the head as fitted
  const still = turned(0, 0).row;
  let top = 0;
  for (let k = 0; k * THETA_STEP <= THETA_MAX + 1e-9; k += 1) top = Math.max(top, ...turned(k * THETA_STEP, 0).row);
  const { picture, controls, readouts } = stage(el);

  const reach = Math.max(Math.hypot(...Q[it]), Math.hypot(...K[cat])) + 0.6;
  const half = Math.ceil(reach * 2) / 2;
  const plane = makePlane({
    x: [-half, half],
    y: [-half, half],
    // the width of a phone's column: labels at their own size
    unit: PLANE_WIDTH / (2 * half),
    label: t({
      zh: "it 的查询和 cat 的键，按各自的位置转过 p·θ；淡色是不转时",
      en: "The query of it and the key of cat, turned by p·θ; faint, unturned",
    }),
  });
  picture.append(plane.root);
  arrow(plane, { cls: "query faint" }).set(Q[it]);
  arrow(plane, { cls: "key faint" }).set(K[cat]);
  const between = arc(plane, { radius: 34, name: "angle" });
  const key = arrow(plane, { cls: "key", label: "k_cat" });
  const query = arrow(plane, { cls: "query", label: "q_it" });

  // the most any θ gives one key
  const ceiling = Math.ceil(top * 10) / 10;
  const bars = makeBars(picture, {
    labels: seen,
    domain: [0, ceiling],
    name: "w",
    // how much of each value row it takes: the value hue
    kind: "weights",
    // beside the plane as tall for its width as it; on a phone short, to fit one screen
    height: matchMedia("(max-width: 1099px)").matches ? 170 : 280,
    width: 340,
    // up to the ceiling, so the room over today's bars is read as where other turns reach
    ticks: Array.from({ length: Math.floor(ceiling * 5 + 1e-9) + 1 }, (_, k) => k / 5),
    title: t({ zh: "it 这一行的权重（淡色：不转）", en: "Row it's weights (pale: no turn)" }),
    label: t({
      zh: "it 这一行的权重，淡色是不转时",
      en: "Row it's weights, pale with no turn",
    }),
  });

  // the shift first: it is the question's gesture (both arrows turn on, the angle stays)
  const shiftSlider = slider(controls, {
    label: t({ zh: "一起后移", en: "Shift both by" }),
    min: 0,
    max: lastShift,
    step: 1,
    name: "shift",
    onInput: (shift) => fig.set({ shift }),
  });
  const thetaSlider = slider(controls, {
    label: t({ zh: "每位转 θ", en: "Turn θ" }),
    min: 0,
    max: THETA_MAX,
    step: THETA_STEP,
    name: "theta",
    onInput: (theta) => fig.set({ theta }),
  });
  // the plane turns by hand too: a press or drag on it sets θ from the pointer's angle. The
  // query of it (position m) turns by m·θ, so θ is the pointer's turn from the unturned query
  // over m, on the branch nearest the θ shown, so a drag winds on smoothly past a full turn
  dragWith(
    plane.root,
    /** @type {any} */ (thetaSlider.input),
    (event) => {
      const p = new DOMPoint(event.clientX, event.clientY).matrixTransform(plane.root.getScreenCTM()?.inverse());
      const turnBy = Math.atan2(plane.sy(0) - p.y, p.x - plane.sx(0)) - Math.atan2(Q[it][1], Q[it][0]);
      const m = it + fig.state.shift,
        period = (2 * Math.PI) / m;
      const theta = turnBy / m + Math.round((fig.state.theta - turnBy / m) / period) * period;
      fig.set({ theta });
    },
    { jump: true },
  );
  const out = readouts(
    {
      score: t({ zh: "原始分数 q_it·k_cat", en: "raw score q_it·k_cat" }),
      positions: t({ zh: "位置", en: "positions" }),
    },
    { key: "score" },
  );

  const fig = figure(el, {
    state: { theta: article.ropeTheta, shift: 0 },
    clamp: (s, previous) => ({
      theta: Math.round(clampNumber(s.theta, 0, THETA_MAX, previous.theta) * 100) / 100,
      shift: Math.round(clampNumber(s.shift, 0, lastShift, previous.shift)),
    }),
    draw({ theta, shift }) {
      const now = turned(theta, shift);
      query.set(now.q);
      key.set(now.k);
      between.set(now.q, now.k, `${fixed(angleBetween(now.q, now.k), 0)}°`);
      untangle(plane);
      clearTicks(plane, [now.q, now.k, Q[it], K[cat]]);
      bars.set(now.row, { ghost: still });
      thetaSlider.show(theta, `${fixed(theta)} rad`);
      shiftSlider.show(shift, grouped(shift));
      out.show({
        score: fixed(now.raw),
        positions: `i = ${grouped(it + shift)}, j = ${grouped(cat + shift)}`,
      });
    },
  });
}
