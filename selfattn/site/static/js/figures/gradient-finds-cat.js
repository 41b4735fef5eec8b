// F27: gradient descent finds cat. The head reads "the cat ate and it" (or "the dog …") and
// must guess the word after it (ran, barked) from the output of it alone; only W_Q and W_K
// learn. Each step turns the query of it and the keys on the plane, moves row it's weight
// onto the noun and lowers the loss. A run (a seed and a rate) is trained in learn.js, the
// mirror of learn.py, once when it is chosen; the player then walks it a step a frame.
// At each step the gradient is drawn where it acts: −∂L/∂q_it from the query's tip (the
// query's next step lies exactly along it) and each key's pull −∂L/∂k from its tip, dashed,
// at their true length on the plane's own scale: large at the start, fading as the loss
// falls, which is the story (the prose says so).

import { argmax, times } from "../attention.js";
import { clampNumber, figure } from "../figure.js";
import { t } from "../i18n.js";
import { makeBars } from "../kit/bars.js";
import { axis, chart, linear, ticks } from "../kit/chart.js";
import { choices, stepper } from "../kit/controls.js";
import { html } from "../kit/dom.js";
import { fixed, grouped } from "../kit/format.js";
import { marks } from "../kit/marks.js";
import { around, arrow, clearTicks, makePlane, untangle } from "../kit/plane.js";
import { player } from "../kit/player.js";
import { stage } from "../kit/stage.js";
import { forwardBackward, train } from "../learn.js";

const TICK_MS = 16; // a step a frame, about: 200 steps in a little over three seconds
const READ = ["the", "cat", "ate", "and", "it"]; // the cat sentence, as the bars name it
const PULL = 1; // the pulls at their true length, in the plane's own units

/**
 * @param {HTMLElement} el @param {import("../kit/head.js").Head} _head
 * @param {unknown} _article @param {unknown} _training
 * @param {import("../learn.js").Task & {seed: number, rate: number, rates: number[], steps: number, seeds: number}} task
 */
export default function (el, _head, _article, _training, task) {
  const { steps, rates } = task;
  const it = task.it,
    noun = READ.indexOf("cat");
  const [catX, dogX] = task.X;
  // every key the two sentences hold: the, cat, ate, and, it, then dog's
  const keyNames = [...READ, "dog"];
  const keyInputs = [...catX, dogX[noun]];
  const seedNames = Array.from({ length: task.seeds }, (_, k) => grouped(k + 1));
  const { picture, controls, readouts } = stage(el);
  // the plane on the left (or on top), the row of it and the loss stacked beside it
  const charts = html("div", { class: "charts" });
  picture.append(charts);

  const bars = makeBars(charts, {
    labels: READ,
    domain: [0, 1],
    name: "w",
    height: 90, // kept short: with the plane, the controls and the question, a phone's screen
    ticks: [0, 0.5, 1],
    title: t({ zh: "it 这一行的权重（淡色：训练前）", en: "Row it's weights (pale: before training)" }),
    label: t({
      zh: "“the cat ate and it” 中 it 这一行的权重，淡色柱是训练开始时的权重",
      en: "The weights of row it in “the cat ate and it”, pale where they stood before training",
    }),
  });

  /** The plane and the loss chart of one run, fitted to every step of it. */
  let shown = { key: "", plane: /** @type {any} */ (null), chart: /** @type {any} */ (null) };
  /** @type {import("../learn.js").Run} */
  let run;
  const runs = new Map();
  /** @param {number} seed @param {number} rate */
  function runOf(seed, rate) {
    const key = `${seed}:${rate}`;
    if (!runs.has(key)) runs.set(key, train(task, seed, rate, steps));
    return runs.get(key);
  }
  /** @param {import("../learn.js").Run} r @param {number} k */
  const queryAt = (r, k) => times(catX[it], r.WQ[k]);
  /** @param {import("../learn.js").Run} r @param {number} k */
  const keysAt = (r, k) => keyInputs.map((x) => times(x, r.WK[k]));
  /**
   * The pulls at step k: −∂L/∂q_it (one query in both sentences, so its two
   * sentences' parts add), then each key's −∂L/∂k, the keys both sentences share adding too.
   * @param {import("../learn.js").Run} r @param {number} k @returns {[number[], number[][]]}
   */
  function pullsAt(r, k) {
    const { dq, dK } = forwardBackward(task, r.WQ[k], r.WK[k]);
    const scale = (/** @type {number[]} */ v) => v.map((x) => -PULL * x);
    const shared = READ.map((_, j) => (j === noun ? dK[0][j] : dK[0][j].map((x, c) => x + dK[1][j][c])));
    return [scale(dq[0].map((x, c) => x + dq[1][c])), [...shared, dK[1][noun]].map(scale)];
  }
  /** @param {number[]} a @param {number[]} b */
  const plus = (a, b) => [a[0] + b[0], a[1] + b[1]];
  /**
   * The tip of `pull` drawn from `from`, cut where it would leave the plane: same direction,
   * only the first step's pull is ever long enough to be cut.
   * @param {{bounds: {x0: number, x1: number, y0: number, y1: number}}} plane
   * @param {number[]} from @param {number[]} pull
   */
  function tipOf(plane, from, pull) {
    const { x0, x1, y0, y1 } = plane.bounds;
    const inset = 0.05; // the arrowhead stays on the paper
    let t = 1;
    [
      [pull[0], x0 + inset - from[0], x1 - inset - from[0]],
      [pull[1], y0 + inset - from[1], y1 - inset - from[1]],
    ].forEach(([d, low, high]) => {
      if (d > 0) t = Math.min(t, high / d);
      if (d < 0) t = Math.min(t, low / d);
    });
    return plus(
      from,
      pull.map((x) => Math.max(0, t) * x),
    );
  }

  /** @param {import("../learn.js").Run} r */
  function planeFor(r) {
    // the plane holds every vector of the run and every pull but the first step's, which
    // is often several times longer than the rest and would shrink the whole picture (and
    // pass a phone's screen) for one frame: that one is cut at the plane's edge instead
    const points = r.WQ.flatMap((_, k) => {
      const q = queryAt(r, k),
        K = keysAt(r, k);
      if (!k) return [q, ...K];
      const [qPull, kPulls] = pullsAt(r, k);
      return [q, ...K, plus(q, qPull), ...K.map((key, j) => plus(key, kPulls[j]))];
    });
    const plane = makePlane({
      zoom: 1.5, // labels crowd at the world scale: drawn 1.5× it, and says so
      ...around(points, { pad: 0.5 }),
      unit: 90,
      label: t({
        zh: "it 的查询（橙）和六个键（蓝）在训练中转动；淡色是训练前",
        en: "The query of it (orange) and the six keys (blue) turning as it trains; faint, before training",
      }),
    });
    const before = { query: arrow(plane, { cls: "query faint" }), cat: arrow(plane, { cls: "key faint" }) };
    const keys = keyNames.map((name) => arrow(plane, { cls: "key", label: name }));
    const query = arrow(plane, { cls: "query", label: "q_it" });
    // dashed, the line's own style: a pull is not a vector of the head
    const dashed = (/** @type {{g: SVGGElement}} */ a) => {
      a.g.style.strokeDasharray = "5 4";
      return a;
    };
    const pulls = {
      // unlabelled: the caption names them, and the plane has no room for another name
      query: dashed(arrow(plane, { cls: "query" })),
      keys: keyNames.map(() => dashed(arrow(plane, { cls: "key" }))),
    };
    before.query.set(queryAt(r, 0));
    before.cat.set(keysAt(r, 0)[noun]);
    return { plane, keys, query, points, pulls };
  }

  /** @param {import("../learn.js").Run} r */
  function lossFor(r) {
    const top = Math.max(0.5, Math.ceil(Math.max(...r.loss) * 2) / 2);
    const frame = chart(charts, {
      height: 104,
      margin: { left: 34, right: 14, top: 28, bottom: 24 },
      cls: "losses",
      // the step axis named in the title, not under the ticks: a line of the phone's screen
      title: t({ zh: "损失（nats），随训练步数", en: "loss (nats) by training step" }),
      label: t({
        zh: "每一步的损失：猜错 it 后面那个词的代价",
        en: "The loss at each step: what guessing the word after it wrong costs",
      }),
    });
    const { box } = frame;
    const x = linear([0, steps], [box.left, box.right]);
    const y = linear([0, top], [box.bottom, box.top]);
    axis(frame, y, { side: "left", values: ticks(0, top, 3) });
    axis(frame, x, { side: "bottom", values: [0, steps / 2, steps] });
    const on = marks(frame, x, y);
    const whole = r.loss.map((v, k) => [k, v]);
    on.line(whole, { cls: "line faint" });
    const walked = on.line([whole[0]], { cls: "line" });
    const here = on.dot({ layer: "handles" });
    return { frame, whole, walked, here, x, y };
  }

  const steps_ = player(controls, {
    label: t({ zh: "训练", en: "Training" }),
    at: () => fig.state.step,
    last: () => steps,
    go: (step) => fig.set({ step }),
    tick: TICK_MS,
    jump: true,
    words: {
      start: { zh: "↺ 重来", en: "↺ Reset" },
      back: { zh: "◀ 退一步", en: "◀ Back" },
      play: { zh: "训练", en: "Train" },
      next: { zh: "走一步 ▶", en: "Step ▶" },
    },
  });
  const seedStep = stepper(controls, {
    label: t({ zh: "随机种子", en: "Seed" }),
    items: seedNames,
    name: "seed",
    onPick: (k) => fig.set({ seed: k + 1, step: 0 }),
  });
  const rateChoice = choices(controls, {
    legend: t({ zh: "学习率", en: "Learning rate" }),
    name: "rate",
    options: rates.map((r) => ({ value: String(r), label: String(r) })),
    onInput: (v) => fig.set({ rate: Number(v) }),
  });
  const out = readouts({ loss: t({ zh: "损失", en: "loss" }), step: t({ zh: "步数", en: "step" }) }, { key: "loss" });

  const fig = figure(el, {
    state: { seed: task.seed, rate: task.rate, step: 0 },
    clamp: (s, previous) => ({
      seed: Math.round(clampNumber(s.seed, 1, task.seeds, previous.seed)),
      rate: rates.includes(Number(s.rate)) && typeof s.rate !== "boolean" ? Number(s.rate) : previous.rate,
      step: Math.round(clampNumber(s.step, 0, steps, previous.step)),
    }),
    discrete: ["seed", "rate"],
    draw({ seed, rate, step }) {
      const key = `${seed}:${rate}`;
      run = runOf(seed, rate);
      if (shown.key !== key) {
        shown.plane?.plane.root.remove();
        shown.chart?.frame.root.remove();
        const plane = planeFor(run);
        const loss = lossFor(run);
        picture.prepend(plane.plane.root);
        shown = { key, plane, chart: loss };
      }
      const { plane, keys, query, points, pulls } = shown.plane;
      const q = queryAt(run, step),
        K = keysAt(run, step),
        [qPull, kPulls] = pullsAt(run, step);
      query.set(q);
      pulls.query.set(tipOf(plane, q, qPull), q);
      K.forEach((k, j) => {
        keys[j].set(k);
        pulls.keys[j].set(tipOf(plane, k, kPulls[j]), k);
      });
      untangle(plane);
      clearTicks(plane, [q, ...K, ...points.slice(0, keyNames.length + 1)]);
      const row = run.weights[step][0];
      bars.set(row, { win: argmax(row), ghost: run.weights[0][0] });
      const { walked, whole, here, x, y } = shown.chart;
      walked.path.setAttribute(
        "d",
        whole
          .slice(0, step + 1)
          .map(([u, v], i) => `${i ? "L" : "M"} ${x(u).toFixed(1)} ${y(v).toFixed(1)}`)
          .join(" "),
      );
      here.set(step, run.loss[step]);
      steps_.show(step, steps);
      seedStep.show(seed - 1);
      rateChoice.show(String(rate));
      out.show({ loss: fixed(run.loss[step], 3), step: `${grouped(step)} / ${grouped(steps)}` });
    },
  });
}
