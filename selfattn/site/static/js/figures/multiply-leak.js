// F19: mask by adding −∞ or, the bug, by multiplying by 0. A zeroed score is not a
// missing one: exp(0) = 1, so ran keeps a share of the row of it that it should never have,
// drawn in red where the mask should have left an empty dashed box. Beside the bars, the
// tell: the same tiny model trained both ways at build time (leak.py). The × 0 run's loss
// falls below what the text itself allows. One read-out line: ran's score and the weight
// leaked over every row, red once there is any; the rest is drawn.

import { figure } from "../figure.js";
import { t } from "../i18n.js";
import { makeBars } from "../kit/bars.js";
import { axis, chart, linear } from "../kit/chart.js";
import { toggle } from "../kit/controls.js";
import { svg } from "../kit/dom.js";
import { fixed, weight } from "../kit/format.js";
import { marks } from "../kit/marks.js";
import { stage } from "../kit/stage.js";

/** Exactly zero prints as 0, so "0" and "0.000" never look alike. */
const exact = (w) => (w === 0 ? "0" : weight(w, 3));

/**
 * @typedef {{steps: number[], train_loss: number[], held_out: number}} Run
 * @typedef {{correct: Run, leaky: Run, floor: number, chance: number, vocab: number,
 *   length: number, n_train: number}} Training the two runs as leak.py measured them
 */

/**
 * The two training curves on one loss axis, with the loss the chain itself allows.
 * @param {HTMLElement} picture @param {Training} training
 */
function lossChart(picture, training) {
  const { correct, leaky, floor } = training;
  const frame = chart(picture, {
    height: 170,
    margin: { left: 30, right: 78, top: 24, bottom: 36 }, // room for "× 0 0.77" in bold past the curves
    cls: "losses",
    label: t({
      zh: "两种掩码的训练损失：× 0 那条远远跌破新文本的下限",
      en: "Training loss with each mask: the × 0 run falls far below the floor on fresh text",
    }),
  });
  const { box } = frame;
  const last = correct.steps.at(-1) ?? 1;
  const x = linear([0, last], [box.left, box.right]);
  const y = linear([0, 3], [box.bottom, box.top]);
  axis(frame, y, {
    side: "left",
    values: [0, 1, 2, 3],
    title: t({ zh: "训练损失（nats）", en: "training loss (nats)" }),
  });
  axis(frame, x, {
    side: "bottom",
    values: [0, last / 4, last / 2, (3 * last) / 4, last],
    title: t({ zh: "训练步数", en: "training step" }),
  });
  const on = marks(frame, x, y);
  on.rule({ y: floor });
  // the honest curve runs a few px under the floor (it ends at 1.67 under 1.73), so the label
  // goes a line lower than a rule's, in the open band between the two curves
  const name = svg(
    "text",
    { class: "reference-label", x: box.right - 4, y: y(floor) + 20, "text-anchor": "end" },
    frame.layers.labels,
  );
  // named as the floor of fresh text: on its own training text an honest model dips a little
  // under it by memorising (1.67), so "the text's floor" read the honest curve as cheating too
  name.textContent = t({ zh: `新文本的下限 ${fixed(floor)}`, en: `floor on fresh text ${fixed(floor)}` });
  /** @param {Run} run @param {string} cls @param {string} name */
  const curve = (run, cls, name) =>
    on.line(
      run.steps.map((step, i) => [step, run.train_loss[i]]),
      { cls: `curve ${cls}`, label: `${name} ${fixed(run.train_loss.at(-1) ?? 0)}`, labelCls: `curve-label ${cls}` },
    );
  return { correct: curve(correct, "correct", "−∞"), leaky: curve(leaky, "leak", "× 0") };
}

/**
 * @param {HTMLElement} el @param {import("../kit/head.js").Head} head
 * @param {import("../kit/head.js").Article} _article @param {Training} training
 */
export default function (el, head, _article, training) {
  const { tokens } = head;
  const it = head.index("it"),
    ran = head.index("ran");
  const runs = { causal: head.run("causal"), multiply: head.run("multiply") };
  const top = Math.max(...runs.causal.W[it], ...runs.multiply.W[it]);
  const { picture, controls, readouts } = stage(el);
  const bars = makeBars(picture, {
    labels: tokens,
    domain: [0, top * 1.12],
    name: "bar",
    height: 160,
    kind: "weights",
    format: exact,
    // named as the row it is, as the loss beside it names its axis
    title: t({ zh: "it 这一行的权重", en: "Row it's weights" }),
    label: t({
      zh: "it 这一行的权重；遮住的键是虚线框，漏过去的是红色",
      en: "Row it's weights; a masked key is a dashed box, weight leaking onto it red",
    }),
  });
  const curves = lossChart(picture, training);
  const mode = toggle(controls, {
    label: t({ zh: "用 × 0 代替 + (−∞) 来掩码", en: "Mask by × 0 instead of + (−∞)" }),
    name: "multiply",
    off: "+ (−∞)",
    on: "× 0",
    onChange: (multiply) => fig.set({ multiply }),
  });
  // w(it, ran) is its bar's label; what the bars cannot show is the score that gave it, and
  // what leaks over all six rows together (the prose's "leaked, all rows")
  const out = readouts(
    { "score.ran": "score(it, ran)", leaked: t({ zh: "全图泄漏", en: "leaked, all rows" }) },
    { key: "score.ran" },
  );

  const fig = figure(el, {
    state: { multiply: false },
    clamp: (s) => ({ multiply: s.multiply === true }),
    discrete: ["multiply"],
    draw({ multiply }) {
      const { S, W } = runs[multiply ? "multiply" : "causal"];
      mode.show(multiply);
      const future = tokens.map((_, j) => j > it);
      bars.set(W[it], {
        masked: future.map((f) => (f ? "0" : null)),
        leak: future.map((f) => f && multiply),
        win: ran, // the key the question asks about
      });
      let leaked = 0;
      W.forEach((row, i) => {
        for (let j = i + 1; j < row.length; j += 1) leaked += row[j];
      });
      // "0.000", not "0": the read-out must not read as the axis's 0 tick
      out.show({ "score.ran": fixed(S[it][ran]), leaked: leaked > 0 ? exact(leaked) : fixed(0, 3) });
      el.classList.toggle("leaking", leaked > 0);
      // the run of the mask in use stands out; the other stays for comparison
      for (const [name, c] of Object.entries(curves)) {
        const mine = (name === "leaky") === multiply;
        c.path.classList.toggle("current", mine);
        c.label?.classList.toggle("current", mine);
      }
    },
  });
}
