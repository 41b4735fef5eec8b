// F26: four bugs that never raise, each on a switch, each beside the assertion that catches
// it, run on the map as it stands. Our toy head has no positional encoding, so that switch
// starts on; switching it off adds RoPE (q and k at position p turned by p rad), which the
// head was never fitted with. The picture is the map and, drawn beside it (under it on a
// phone), the five checks: each a row with its verdict and the bug's name, its assertion as one
// line of code and the number it looks at; a failing row wears a red bar. No note, no card.

import { VERDICT } from "../assertion.js";
import { applyMask, project, softmax, turn, weightedSum } from "../attention.js";
import { figure } from "../figure.js";
import { t } from "../i18n.js";
import { toggle } from "../kit/controls.js";
import { svg } from "../kit/dom.js";
import { cellWeight, fixed } from "../kit/format.js";
import { weightMap } from "../kit/grid.js";
import { setSvg } from "../kit/notation.js";
import { stage } from "../kit/stage.js";

const BUGS = ["multiply", "noPositions", "noSqrt", "longKey"];
const UNCHANGED = { zh: "不变", en: "unchanged" };
const START = { multiply: false, noPositions: true, noSqrt: false, longKey: false };

/**
 * The head with the chosen bugs, on the sentence read in `order`, with or without the mask;
 * `stretch` is how many times longer `and`'s key grows (article.py's STRETCH). bugs.py
 * computes the same head, and a test holds the two together.
 * @returns {{K: number[][], W: number[][], out: number[][]}}
 */
export function run(head, bugs, order, masked, stretch) {
  const and = head.index("and");
  const X = order.map((j) => head.X[j]);
  let Q = project(X, head.W_Q),
    K = project(X, head.W_K);
  const V = project(X, head.W_V);
  if (bugs.longKey) K = K.map((k, p) => (order[p] === and ? k.map((x) => x * stretch) : k));
  if (!bugs.noPositions) {
    // RoPE for d = 2, where the one frequency is 1: position p turned by p radians
    Q = Q.map((q, p) => turn(q, p));
    K = K.map((k, p) => turn(k, p));
  }
  const divisor = bugs.noSqrt ? 1 : Math.sqrt(X[0].length);
  const S = Q.map((q) => K.map((k) => (q[0] * k[0] + q[1] * k[1]) / divisor));
  const W = softmax(applyMask(S, masked ? (bugs.multiply ? "multiply" : "causal") : "none"));
  return { K, W, out: weightedSum(W, V) };
}

// under 1e-9 a difference is float noise, never printed as 2.2 × 10⁻¹⁶: it is 0
const NOISE = 1e-9;
const exactly = (x, decimals) => (x < NOISE ? "0" : fixed(x, decimals));

/** @param {HTMLElement} el @param {import("../kit/head.js").Head} head @param {import("../kit/head.js").Article} article */
export default function (el, head, article) {
  const { tokens } = head;
  const n = tokens.length,
    it = head.index("it");
  const reading = tokens.map((_, j) => j);
  const reversed = [...reading].reverse();
  // the √d assertion at random init, at a GPT-2 small head's width: Python draws the scores
  const { initWidth, initSpread, stretch, keyLimit } = article;
  const spreads = { sqrt: initSpread / Math.sqrt(initWidth), none: initSpread };
  const { picture, controls, readouts } = stage(el);
  const map = weightMap(
    picture,
    tokens,
    t({ zh: "打开的 bug 下的注意力图", en: "The attention map with the chosen bugs" }),
  );
  const labels = {
    rows: t({ zh: "每次都跑的行检查", en: "The row check everyone runs" }),
    multiply: t({ zh: "掩码用 × 0", en: "Mask by × 0" }),
    noPositions: t({ zh: "没有位置信息", en: "No positions" }),
    noSqrt: t({ zh: "漏掉 √d", en: "No √d" }),
    longKey: t({ zh: "键没有归一化", en: "Unnormalised keys" }),
  };
  // each check: the name its verdict is read by, and its assertion in one line of code
  const CHECKS = [
    ["rows", "rows", "w >= 0  and  w.sum(-1) == 1"],
    ["multiply", "mask", "(w[future] == 0).all()"],
    ["noPositions", "positions", "attn(x[perm]) != attn(x)[perm]"],
    ["noSqrt", "sqrt", `0.5 < score.std() < 2   # d = ${initWidth}`],
    ["longKey", "keys", `|k|.max() < ${keyLimit} × |k|.quantile(0.5)`],
  ];
  // the five checks, drawn: a row each, two lines, on the page's paper
  const ROW = 40,
    WIDE = 362;
  const board = svg("svg", {
    viewBox: `0 0 ${WIDE} ${CHECKS.length * ROW + 4}`,
    class: "chart checks",
    role: "img",
    "aria-label": t({
      zh: "五个断言，每个 bug 一个，加上每次都跑的行检查：各自的代码、结论和它看的数",
      en: "Five assertions, one per bug and the row check everyone runs: each one's code, verdict and the number it looks at",
    }),
  });
  picture.append(board);
  const rows = Object.fromEntries(
    CHECKS.map(([bug, name, code], r) => {
      const top = 2 + r * ROW;
      const g = svg("g", { class: "check" }, board);
      svg("rect", { class: "check-bar", x: 0, y: top + 3, width: 3, height: ROW - 8, rx: 1.5 }, g);
      // the verdict first, beside the name it judges; names and code start one column on, in
      // em so the column keeps its width at any drawing scale
      const title = svg("text", { class: "check-name", x: "6.6em", y: top + 16 }, g);
      setSvg(title, labels[bug]);
      const verdict = svg("text", { class: "check-verdict", x: 10, y: top + 16, "data-readout": `check.${name}` }, g);
      setSvg(svg("text", { class: "check-code", x: "6.86em", y: top + 33 }, g), code);
      const value = svg(
        "text",
        { class: "check-value", x: WIDE - 4, y: top + 33, "data-readout": `check.${name}.value` },
        g,
      );
      return [name, { g, verdict, value }];
    }),
  );
  const out = readouts({ failing: t({ zh: "没通过的断言", en: "assertions failing" }) }, { key: "failing" });
  const switches = Object.fromEntries(
    BUGS.map((bug) => [
      bug,
      toggle(controls, { label: labels[bug], name: bug, onChange: (v) => fig.set({ [bug]: v }) }),
    ]),
  );
  /** @param {string} name @param {boolean} pass @param {string} number */
  const verdictOf = (name, pass, number) => {
    const { g, verdict, value } = rows[name];
    const word = t(pass ? VERDICT.pass : VERDICT.fail);
    if (verdict.textContent !== word) verdict.textContent = word;
    if (value.textContent !== number) value.textContent = number;
    // "unchanged" at a word's size
    value.classList.toggle("word", !/\d/.test(number));
    g.classList.toggle("fails", !pass);
    return pass;
  };

  const fig = figure(el, {
    state: { ...START },
    clamp: (s) => ({
      multiply: s.multiply === true,
      noPositions: s.noPositions !== false,
      noSqrt: s.noSqrt === true,
      longKey: s.longKey === true,
    }),
    discrete: BUGS,
    draw(bugs) {
      for (const bug of BUGS) switches[bug].show(bugs[bug]);
      // a bug switched on names its row in red
      for (const [bug, name] of CHECKS) rows[name].g.classList.toggle("on", bugs[bug] === true);
      const { K, W } = run(head, bugs, reading, true, stretch);
      const future = (i, j) => j > i;
      map.set(W, {
        row: it,
        // row it and what the mask did print; every other weight is read by its tint
        numbers: (i, j) => i === it || future(i, j),
        format: cellWeight,
        mark: (i, j) => (future(i, j) ? { masked: "0", leak: W[i][j] > 0 } : null),
      });

      // rows positive and summing to one: true of every state here
      let worst = 0,
        positive = true,
        leaked = 0;
      W.forEach((row, i) => {
        worst = Math.max(worst, Math.abs(row.reduce((a, b) => a + b, 0) - 1));
        row.forEach((w, j) => {
          if (future(i, j)) leaked += w;
          else if (!(w > 0)) positive = false;
        });
      });
      const verdicts = [
        verdictOf("rows", positive && worst < 1e-9, exactly(worst, 3)),
        verdictOf("mask", leaked === 0, exactly(leaked, 3)),
      ];

      // shuffle the sentence (read it backwards), mask off: do the outputs only follow their tokens?
      const plain = run(head, bugs, reading, false, stretch).out;
      const shuffled = run(head, bugs, reversed, false, stretch).out;
      const change = Math.max(...shuffled.flatMap((o, p) => o.map((x, b) => Math.abs(x - plain[reversed[p]][b]))));
      verdicts.push(verdictOf("positions", change > NOISE, change > NOISE ? fixed(change) : t(UNCHANGED)));

      const spread = spreads[bugs.noSqrt ? "none" : "sqrt"];
      verdicts.push(verdictOf("sqrt", spread > 0.5 && spread < 2, fixed(spread)));

      const lengths = K.map((k) => Math.hypot(...k));
      const sorted = [...lengths].sort((a, b) => a - b);
      const median = (sorted[(n - 1) >> 1] + sorted[n >> 1]) / 2;
      const ratio = Math.max(...lengths) / median;
      verdicts.push(verdictOf("keys", ratio < keyLimit, fixed(ratio)));

      out.show({ failing: `${verdicts.filter((ok) => !ok).length} / 5` });
    },
  });
}
