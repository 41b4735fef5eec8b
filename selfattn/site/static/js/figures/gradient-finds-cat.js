// F27: gradient descent finds cat. The head reads "the cat ate and it" (or "the dog …") and
// must guess the word after it (ran, barked) from the output of it alone; only W_Q and W_K
// learn. Each step turns the query of it and the keys on the plane, moves row it's weight
// onto the noun and lowers the loss. A run (a seed and a rate) is trained in learn.js, the
// mirror of learn.py, once when it is chosen; Train then plays it back by the clock (kit/
// player.js's perSecond: as many steps a frame as the time allows, drawn once), and the
// loss curve is the scrubber: its dot is dragged, or stepped with the keys, to any step.
// The loss is on a log axis, one for every run, so the rates and seeds compare at a glance.
// At each step the gradient is drawn where it acts: −∂L/∂q_it from the query's tip (the
// query's next step lies exactly along it) and each key's pull −∂L/∂k from its tip, dashed,
// at their true length on the plane's own scale: large at the start, fading as the loss
// falls, which is the story (the prose says so).

import { argmax, times } from "../attention.js";
import { clampNumber, figure } from "../figure.js";
import { t } from "../i18n.js";
import { makeBars } from "../kit/bars.js";
import { axis, chart, linear, log, through } from "../kit/chart.js";
import { choices, stepper } from "../kit/controls.js";
import { html, svg } from "../kit/dom.js";
import { fixed, grouped } from "../kit/format.js";
import { valueHandle } from "../kit/handles.js";
import { marks } from "../kit/marks.js";
import { around, arrow, makePlane, untangle } from "../kit/plane.js";
import { player } from "../kit/player.js";
import { stage } from "../kit/stage.js";
import { forwardBackward, train } from "../learn.js";

// steps: 200 in a little over three seconds, on any CPU
const PER_SECOND = 60;
// nats: every run's loss, from seed to seed and rate to rate
const LOSS = [0.01, 3];
// the cat sentence, as the bars name it
const READ = ["the", "cat", "ate", "and", "it"];
// the pulls at their true length, in the plane's own units
const PULL = 1;
// units: a pull shorter than this is shorter than its arrowhead
const SHORTEST = 0.1;

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
  // at the first steps the short keys meet round the origin: on a wide page their names keep
  // half an em apart (a phone's plane has no room to spare: they would give up their places)
  // its .matches follows a resize, with no layout read
  const wide = matchMedia("(min-width: 1100px)");
  // the plane, then the row of it and the loss side by side (one part: kit/compose.js)
  const charts = html("div", { class: "charts" });
  picture.append(charts);

  const bars = makeBars(charts, {
    labels: READ,
    domain: [0, 1],
    name: "w",
    // a weight is the share of a value taken: the value hue
    kind: "weights",
    // the weight before training: a pale bar beside each (an outline's top took the number)
    // the row and the loss side by side, each about as tall as wide: beside the plane at
    // 1280 px they share its height; on a phone they share a row under it, type at its size
    // five numbers of four figures side by side on a phone
    width: 215,
    height: 165,
    ticks: [0, 0.5, 1],
    title: t({ zh: "it 这一行的权重", en: "Row it's weights" }),
    label: t({ zh: "it 这一行的权重，淡色是训练前的", en: "Row it's weights, pale before training" }),
  });

  // the loss, one log axis for every run: the slow rate's plateau and the fast one's floor
  // sit on the same scale
  const lossFrame = chart(charts, {
    width: 165,
    height: 165,
    margin: { left: 36, right: 14, top: 34, bottom: 26 },
    cls: "losses",
    title: t({ zh: "损失 L（对数轴）", en: "Loss L (log axis)" }),
    label: t({ zh: "每一步的损失；拖动圆点走到任意一步", en: "The loss at each step; drag the dot to any step" }),
  });
  const { box } = lossFrame;
  // step 0 a dot's width in from the loss axis, so the dot there keeps off its numbers
  const x = linear([0, steps], [box.left + 10, box.right]);
  const y = log(LOSS, [box.bottom, box.top]);
  const inLoss = (/** @type {number} */ v) => Math.min(LOSS[1], Math.max(LOSS[0], v));
  axis(lossFrame, y, { side: "left", values: [0.01, 0.1, 1], format: (v) => String(v) });
  axis(lossFrame, x, { side: "bottom", values: [0, steps / 2, steps] });
  const on = marks(lossFrame, x, y);
  const whole = on.line([[0, 1]], { cls: "line faint" });
  const walked = on.line([[0, 1]], { cls: "line" });
  // a press anywhere on the plot takes the dot there
  const scrub = svg(
    "rect",
    { x: box.left, y: box.top, width: box.right - box.left, height: box.bottom - box.top, class: "hit" },
    lossFrame.layers.marks,
  );
  const knob = valueHandle(lossFrame.root, {
    label: t({ zh: "训练步数", en: "Training step" }),
    min: 0,
    max: steps,
    step: 1,
    page: 10,
    orientation: "horizontal",
    hit: scrub,
    // the loss chart is drawn at 0.87 of its viewBox on a 360 px phone
    reach: 28,
    toPoint: (k) => [x(k), y(inLoss(run.loss[k]))],
    fromPoint: ([px]) => Math.round(x.invert(px)),
    onMove: (step) => {
      play.stop();
      fig.set({ step });
    },
    get: () => fig.state.step,
  });

  /** The plane of one run, fitted to every step of it. */
  let shown = { key: "", plane: /** @type {any} */ (null) };
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
    // the arrowhead stays on the paper
    const inset = 0.05;
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

  /**
   * Where a pull's arrow ends, or null for one too short to draw (shorter than its own head):
   * late in a run every pull is, and the plane shows the vectors alone, at rest, with no
   * stubs for the labels to step round each frame.
   * @param {{bounds: {x0: number, x1: number, y0: number, y1: number}}} plane
   * @param {number[]} from @param {number[]} pull
   */
  const pullFrom = (plane, from, pull) => (Math.hypot(pull[0], pull[1]) < SHORTEST ? null : tipOf(plane, from, pull));

  /** @param {import("../learn.js").Run} r */
  function planeFor(r) {
    // the plane holds every vector of the run, not the pulls: the first steps' pulls are
    // several times longer than the rest and would shrink the picture for a few frames
    // (and pass a phone's screen); a pull is cut at the plane's edge instead (tipOf)
    const points = r.WQ.flatMap((_, k) => [queryAt(r, k), ...keysAt(r, k)]);
    // a window at least as wide as tall: the keys grow up and along the query, and a plane
    // narrower than its height would leave the charts most of the row
    const window = around(points, { pad: 0.3 });
    const widen = Math.max(0, window.y[1] - window.y[0] - (window.x[1] - window.x[0])) / 2;
    const plane = makePlane({
      x: [window.x[0] - Math.floor(widen * 2) / 2, window.x[1] + Math.ceil(widen * 2) / 2],
      y: window.y,
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
    return { plane, keys, query, pulls };
  }

  const play = player(controls, {
    label: t({ zh: "训练", en: "Training" }),
    at: () => fig.state.step,
    last: () => steps,
    go: (step) => fig.set({ step }),
    perSecond: PER_SECOND,
    jump: true,
    // a step, back, and to the start: the loss curve's dot and its keys
    parts: ["play"],
    words: { play: { zh: "训练", en: "Train" } },
  });
  const rateChoice = choices(controls, {
    // the learning rate, as the prose names it just before the figure
    legend: "η",
    name: "rate",
    options: rates.map((r) => ({ value: String(r), label: String(r) })),
    onInput: (v) => fig.set({ rate: Number(v) }),
  });
  const seedStep = stepper(controls, {
    label: t({ zh: "种子", en: "Seed" }),
    items: seedNames,
    name: "seed",
    onPick: (k) => fig.set({ seed: k + 1, step: 0 }),
  });
  const out = readouts({ loss: "L", step: t({ zh: "步数", en: "step" }) }, { key: "loss" });

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
        const plane = planeFor(run);
        picture.prepend(plane.plane.root);
        shown = { key, plane };
        const curve = run.loss.map((v, k) => [k, inLoss(v)]);
        whole.path.setAttribute("d", through(x, y, curve));
      }
      const { plane, keys, query, pulls } = shown.plane;
      const q = queryAt(run, step),
        K = keysAt(run, step),
        [qPull, kPulls] = pullsAt(run, step);
      query.set(q);
      pulls.query.set(pullFrom(plane, q, qPull), q);
      K.forEach((k, j) => {
        keys[j].set(k);
        pulls.keys[j].set(pullFrom(plane, k, kPulls[j]), k);
      });
      // it hides the ticks under every arrow, its head and its label too
      untangle(plane, { apart: wide.matches ? 0.5 : undefined });
      const row = run.weights[step][0];
      bars.set(row, { win: argmax(row), ghost: run.weights[0][0] });
      walked.path.setAttribute(
        "d",
        through(
          x,
          y,
          run.loss.slice(0, step + 1).map((v, k) => [k, inLoss(v)]),
        ),
      );
      knob.place(step, `${grouped(step)} / ${grouped(steps)}`);
      play.show(step, steps);
      seedStep.show(seed - 1);
      rateChoice.show(String(rate));
      out.show({ loss: fixed(run.loss[step], 3), step: `${grouped(step)} / ${grouped(steps)}` });
    },
  });
}
