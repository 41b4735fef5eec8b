// F25: four bugs that never raise, each on a switch, each next to the assertion that
// catches it, run on the map as it stands. Our toy head has no positional encoding, so
// that switch starts on; switching it off adds RoPE (q and k at position p turned by p rad).

import { figure, readout, t, html } from "../figure.js";
import { applyMask, project, softmax, weightedSum } from "../attention.js";
import { fixed, scientific } from "../kit/format.js";
import { makeHeatmap, weightCells, legend, cellWeight } from "../heatmap.js";
import { toggle } from "../switch.js";
import { assertion } from "../assertion.js";

const STRETCH = 10; // how much longer `and`'s key grows when nothing keeps keys in check
const KEY_LIMIT = 4; // longest key over the median key that the assertion allows
const WIDE = 64; // the width at which the √d assertion runs, as at a GPT-2 small head

const BUGS = ["multiply", "noPositions", "noSqrt", "longKey"];

/** The same seeded stream of N(0, 1) numbers on every visit: mulberry32 and Box–Muller. */
function normals(seed) {
  let s = seed >>> 0;
  const uniform = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let r = Math.imul(s ^ (s >>> 15), 1 | s);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
  return () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
}

/** Standard deviation of q·k / divisor for random unit-variance q, k of width 64: the spread at initialisation. */
function spreadAtInit(divisor) {
  const draw = normals(2024);
  const rows = (n) => Array.from({ length: n }, () => Array.from({ length: WIDE }, draw));
  const Q = rows(32), K = rows(32);
  const scores = Q.flatMap((q) => K.map((k) => q.reduce((sum, x, i) => sum + x * k[i], 0) / divisor));
  const mean = scores.reduce((a, b) => a + b, 0) / scores.length;
  return Math.sqrt(scores.reduce((a, s) => a + (s - mean) ** 2, 0) / scores.length);
}

/** Turn a 2-D vector by `angle` radians: RoPE for d = 2, where the one frequency is 1. */
const rotate = ([a, b], angle) => [a * Math.cos(angle) - b * Math.sin(angle), a * Math.sin(angle) + b * Math.cos(angle)];

/**
 * The head with the chosen bugs, on the sentence read in `order`, with or without the mask.
 * @returns {{K: number[][], W: number[][], out: number[][]}}
 */
function run(head, bugs, order, masked) {
  const and = head.tokens.indexOf("and");
  const X = order.map((j) => head.X[j]);
  let Q = project(X, head.W_Q), K = project(X, head.W_K);
  const V = project(X, head.W_V);
  if (bugs.longKey) K = K.map((k, p) => (order[p] === and ? k.map((x) => x * STRETCH) : k));
  if (!bugs.noPositions) {
    Q = Q.map((q, p) => rotate(q, p));
    K = K.map((k, p) => rotate(k, p));
  }
  const divisor = bugs.noSqrt ? 1 : Math.sqrt(X[0].length);
  const S = Q.map((q) => K.map((k) => (q[0] * k[0] + q[1] * k[1]) / divisor));
  const W = softmax(applyMask(S, masked ? (bugs.multiply ? "multiply" : "causal") : "none"));
  return { K, W, out: weightedSum(W, V) };
}

const exactly = (x, decimals) => (x === 0 ? "0" : x < 0.5 * 10 ** -decimals ? scientific(x) : fixed(x, decimals));

export default function (el, head) {
  const { tokens } = head;
  const n = tokens.length, it = tokens.indexOf("it");
  const reading = tokens.map((_, j) => j);
  const reversed = [...reading].reverse();
  const spreads = { sqrt: spreadAtInit(Math.sqrt(WIDE)), none: spreadAtInit(1) };

  const map = makeHeatmap({
    tokens, name: "W",
    label: t({ zh: "打开的 bug 下的注意力图", en: "The attention map with the chosen bugs" }),
  });
  // on a phone the map stays in view while the reader works the switches below it
  map.root.classList.add("sticky-map");
  const switches = {
    multiply: toggle({ label: t({ zh: "掩码用 × 0", en: "Mask by × 0" }), name: "multiply", onChange: (v) => fig.set({ multiply: v }) }),
    noPositions: toggle({ label: t({ zh: "没有位置信息", en: "No positional information" }), name: "noPositions", onChange: (v) => fig.set({ noPositions: v }) }),
    noSqrt: toggle({ label: t({ zh: "漏掉 √d", en: "No √d" }), name: "noSqrt", onChange: (v) => fig.set({ noSqrt: v }) }),
    longKey: toggle({ label: t({ zh: "键没有归一化", en: "Unnormalised keys" }), name: "longKey", onChange: (v) => fig.set({ longKey: v }) }),
  };
  const checks = {
    rows: assertion({
      name: "check.rows",
      code: "assert (weight[~future] > 0).all()\nassert torch.allclose(weight.sum(-1), torch.ones(n))",
      measure: t({ zh: "|行和 − 1| 最大", en: "largest |row sum − 1|" }),
    }),
    multiply: assertion({
      name: "check.mask",
      code: "assert (weight[future] == 0).all()",
      measure: t({ zh: "被遮住的权重之和", en: "weight on masked keys" }),
    }),
    noPositions: assertion({
      name: "check.positions",
      code: `${t({ zh: "# 这项检查先关掉因果掩码", en: "# causal mask off for this one" })}\nassert not torch.allclose(attn(x[perm]), attn(x)[perm])`,
      measure: t({ zh: "打乱后多出来的变化", en: "change beyond the shuffle" }),
    }),
    noSqrt: assertion({
      name: "check.sqrt",
      code: `${t({ zh: `# 随机初始化，d = ${WIDE}`, en: `# random init, d = ${WIDE}` })}\nassert 0.5 < score.std() < 2`,
      measure: t({ zh: "分数的标准差", en: "std of the scores" }),
    }),
    longKey: assertion({
      name: "check.keys",
      code: `length = key.norm(dim=-1)\nassert length.max() < ${KEY_LIMIT} * length.median()`,
      measure: t({ zh: "最长键 ÷ 中位数", en: "longest ÷ median key" }),
    }),
  };
  const notes = {
    multiply: t({ zh: "被遮住的分数变成 0 而不是 −∞，未来照样分到权重。", en: "Masked scores become 0, not −∞, so the future still gets weight." }),
    noPositions: t({
      zh: "玩具头本来就没有位置编码，所以这个开关一开始是开着的。关掉它就加上 RoPE：位置 p 的 q、k 转 p 弧度。",
      en: "Our toy head has no positional encoding, so this one starts on. Switch it off to add RoPE: q and k at position p turn by p radians.",
    }),
    noSqrt: t({ zh: "d = 2 时只是稍微尖一点；d = 64 时分数的离散度是 8。", en: "At d = 2 the map only sharpens a little; at d = 64 the scores spread 8 times wider." }),
    longKey: t({ zh: `and 的键变长 ${STRETCH} 倍，抢走了能看到它的行。`, en: `and's key grows ${STRETCH}× longer and takes over the rows that see it.` }),
  };
  const card = (bug) => html("div", { class: "bug-card" }, switches[bug].el, html("p", { class: "figure-note" }, notes[bug]), checks[bug].el);
  const failing = readout("failing", t({ zh: "没通过的断言", en: "assertions failing" }));
  failing.el.querySelector("output").dataset.key = ""; // the one read-out a screen reader hears change
  const itCat = readout("it.cat", "w(it, cat)");
  const itRan = readout("it.ran", "w(it, ran)");
  el.querySelector(".stage").append(
    map.root,
    html("div", { class: "panel" },
      html("div", { class: "readouts wide" }, failing.el, itCat.el, itRan.el),
      html("div", { class: "bug-card always" },
        html("p", { class: "figure-note" }, t({ zh: "每次都跑的检查：每行为正、和为 1。四个 bug 它一个也拦不住。", en: "The check everyone runs: rows positive, summing to one. It catches none of the four." })),
        checks.rows.el),
      legend([
        { kind: "pos", text: t({ zh: "方块面积 ∝ 权重", en: "square's area ∝ weight" }) },
        { kind: "masked", text: t({ zh: "虚线：被遮住，权重 0", en: "dashed: masked, weight 0" }) },
        { kind: "leak", text: t({ zh: "斜线：被遮住却还有权重", en: "hatched: masked, yet weighted" }) },
      ]),
    ),
    html("div", { class: "bug-cards" }, ...BUGS.map(card)),
  );

  const fig = figure(el, {
    state: { multiply: false, noPositions: true, noSqrt: false, longKey: false },
    clamp: (s) => ({
      multiply: s.multiply === true,
      noPositions: s.noPositions !== false,
      noSqrt: s.noSqrt === true,
      longKey: s.longKey === true,
    }),
    draw(bugs) {
      for (const bug of BUGS) switches[bug].show(bugs[bug]);
      const { K, W } = run(head, bugs, reading, true);
      const future = (i, j) => j > i;
      map.set(weightCells(W, future, cellWeight), { row: it });
      itCat.show(fixed(W[it][tokens.indexOf("cat")]));
      itRan.show(cellWeight(W[it][tokens.indexOf("ran")]));

      // rows positive and summing to one: true of every state here
      let worst = 0, positive = true, leaked = 0;
      W.forEach((row, i) => {
        worst = Math.max(worst, Math.abs(row.reduce((a, b) => a + b, 0) - 1));
        row.forEach((w, j) => {
          if (future(i, j)) leaked += w;
          else if (!(w > 0)) positive = false;
        });
      });
      const verdicts = {
        rows: positive && worst < 1e-9,
        multiply: leaked === 0,
      };
      checks.rows.show(verdicts.rows, exactly(worst, 3));
      checks.multiply.show(verdicts.multiply, exactly(leaked, 3));

      // shuffle the sentence (read it backwards), mask off: do the outputs only follow their tokens?
      const plain = run(head, bugs, reading, false).out;
      const shuffled = run(head, bugs, reversed, false).out;
      const change = Math.max(...shuffled.flatMap((o, p) => o.map((x, b) => Math.abs(x - plain[reversed[p]][b]))));
      verdicts.noPositions = change > 1e-9;
      checks.noPositions.show(verdicts.noPositions, fixed(change));

      const spread = spreads[bugs.noSqrt ? "none" : "sqrt"];
      verdicts.noSqrt = spread > 0.5 && spread < 2;
      checks.noSqrt.show(verdicts.noSqrt, fixed(spread));

      const lengths = K.map((k) => Math.hypot(...k));
      const sorted = [...lengths].sort((a, b) => a - b);
      const median = (sorted[(n - 1) >> 1] + sorted[n >> 1]) / 2;
      const ratio = Math.max(...lengths) / median;
      verdicts.longKey = ratio < KEY_LIMIT;
      checks.longKey.show(verdicts.longKey, fixed(ratio));

      failing.show(`${Object.values(verdicts).filter((ok) => !ok).length} / 5`);
    },
  });
}
