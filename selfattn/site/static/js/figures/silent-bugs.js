// F26: four bugs that never raise, each on a switch, each next to the assertion that
// catches it, run on the map as it stands. Our toy head has no positional encoding, so
// that switch starts on; switching it off adds RoPE (q and k at position p turned by p
// rad), which the head was never fitted with: the note says what that does to w(it, cat).
// From 1100 px the switches and the assertion stand beside the map, so the figure fits a
// laptop's screen; narrower, the map stays in view (sticky) while the switches change it.

import { assertion } from "../assertion.js";
import { applyMask, project, softmax, turn, weightedSum } from "../attention.js";
import { figure } from "../figure.js";
import { t } from "../i18n.js";
import { toggle } from "../kit/controls.js";
import { html } from "../kit/dom.js";
import { cellWeight, fixed, scientific } from "../kit/format.js";
import { weightMap } from "../kit/grid.js";
import { stage } from "../kit/stage.js";

const BUGS = ["multiply", "noPositions", "noSqrt", "longKey"];
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

const exactly = (x, decimals) => (x === 0 ? "0" : x < 0.5 * 10 ** -decimals ? scientific(x) : fixed(x, decimals));

/** @param {HTMLElement} el @param {import("../kit/head.js").Head} head @param {import("../kit/head.js").Article} article */
export default function (el, head, article) {
  const { tokens } = head;
  const n = tokens.length,
    it = head.index("it"),
    cat = head.index("cat");
  const reading = tokens.map((_, j) => j);
  const reversed = [...reading].reverse();
  // the √d assertion at random init, at a GPT-2 small head's width: Python draws the scores
  const { initWidth, initSpread, stretch, keyLimit } = article;
  const spreads = { sqrt: initSpread / Math.sqrt(initWidth), none: initSpread };
  const { picture, under, readouts } = stage(el);
  picture.classList.add("sticky-map");
  const map = weightMap(
    picture,
    tokens,
    t({ zh: "打开的 bug 下的注意力图", en: "The attention map with the chosen bugs" }),
  );
  const out = readouts(
    {
      failing: t({ zh: "没通过的断言", en: "assertions failing" }),
    },
    { key: "failing" },
  );
  // the read-outs ride with the map, in view while the switches below change them
  picture.append(/** @type {HTMLElement} */ (under.querySelector(".readouts")));
  // a switch focused under the stuck map (a keyboard reader tabbing on a phone) scrolls out
  // from under it, its focus ring clear of the map's bottom edge
  under.addEventListener("focusin", (event) => {
    const over = picture.getBoundingClientRect(),
      focused = /** @type {Element} */ (event.target).getBoundingClientRect();
    const hidden = over.bottom + 12 - focused.top;
    if (hidden > 0 && focused.bottom > over.top && focused.left < over.right && focused.right > over.left)
      window.scrollBy({ top: -hidden, behavior: "instant" });
  });
  // what RoPE does to this head, computed, so the note's numbers are the map's
  const catWith = (noPositions) => run(head, { ...START, noPositions }, reading, true, stretch).W[it][cat];
  const turn = it - cat;
  const notes = {
    multiply: t({
      zh: "被遮住的分数变成 0 而不是 −∞，未来照样分到权重。",
      en: "Masked scores become 0, not −∞, so the future still gets weight.",
    }),
    noPositions: t({
      zh: `玩具头没有位置编码，所以一开始是开着的。关掉它就加上 RoPE：位置 p 的 q、k 转 p 弧度；it 的查询比 cat 的键多转 ${turn} 弧度，w(it, cat) 从 ${fixed(catWith(true))} 掉到 ${fixed(catWith(false))}。`,
      en: `Our toy head has none, so this starts on. Off adds RoPE: q and k at position p turn by p radians, the query of it ${turn} radians further than cat's key, and w(it, cat) falls from ${fixed(catWith(true))} to ${fixed(catWith(false))}.`,
    }),
    noSqrt: t({
      zh: `d = 2 时只是稍微尖一点；d = ${initWidth} 时分数的标准差是 ${Math.sqrt(initWidth)}。`,
      en: `At d = 2 the map only sharpens a little; at d = ${initWidth} the scores spread ${Math.sqrt(initWidth)} times wider.`,
    }),
    longKey: t({
      zh: `and 的键变长 ${stretch} 倍，抢走了能看到它的行。`,
      en: `and's key grows ${stretch}× longer and takes over the rows that see it.`,
    }),
  };
  const labels = {
    multiply: t({ zh: "掩码用 × 0", en: "Mask by × 0" }),
    noPositions: t({ zh: "没有位置信息", en: "No positional information" }),
    noSqrt: t({ zh: "漏掉 √d", en: "No √d" }),
    longKey: t({ zh: "键没有归一化", en: "Unnormalised keys" }),
  };
  // A compact list, the check everyone runs and then a switch a bug, each with its verdict;
  // under it one card at a time, the note and the assertion of the bug last switched (at
  // first the check everyone runs), so the figure stays a phone's screen tall.
  const list = html("div", { class: "bug-list" });
  const detail = html("div", { class: "bug-detail" });
  under.append(list, detail);
  /** @type {Record<string, HTMLElement>} */
  const marks = {};
  const mark = (/** @type {string} */ name) => {
    marks[name] = html("span", { class: "bug-mark", "aria-hidden": "true" });
    return marks[name];
  };
  list.append(
    html(
      "div",
      { class: "bug-row always" },
      html("span", { class: "label", text: t({ zh: "每次都跑的行检查", en: "The row check everyone runs" }) }),
      mark("rows"),
    ),
  );
  const always = html("div", { class: "bug-card always" });
  always.append(
    html("p", {
      class: "figure-note",
      text: t({
        zh: "每次都跑的检查：每行为正、和为 1。四个 bug 它一个也拦不住。",
        en: "The check everyone runs: rows positive, summing to one. It catches none of the four.",
      }),
    }),
  );
  detail.append(always);
  const checks = {
    rows: assertion(always, {
      name: "check.rows",
      code: "assert (weight[~future] > 0).all()\nassert torch.allclose(weight.sum(-1), torch.ones(n))",
      measure: t({ zh: "|行和 − 1| 最大", en: "largest |row sum − 1|" }),
    }),
  };
  const rows = Object.fromEntries(
    BUGS.map((bug) => {
      const row = html("div", { class: "bug-row" });
      list.append(row);
      return [bug, row];
    }),
  );
  const cards = Object.fromEntries(
    BUGS.map((bug) => {
      const card = html("div", { class: "bug-card" });
      detail.append(card);
      return [bug, card];
    }),
  );
  /** the card shown: the bug last switched, or the check everyone runs */
  let open = "rows";
  const switches = Object.fromEntries(
    BUGS.map((bug) => [
      bug,
      toggle(rows[bug], {
        label: labels[bug],
        name: bug,
        onChange: (v) => {
          open = bug;
          fig.set({ [bug]: v });
        },
      }),
    ]),
  );
  for (const bug of BUGS) {
    rows[bug].append(mark(bug));
    cards[bug].append(html("p", { class: "figure-note", text: `${labels[bug]}: ${notes[bug]}` }));
  }
  Object.assign(checks, {
    multiply: assertion(cards.multiply, {
      name: "check.mask",
      code: "assert (weight[future] == 0).all()",
      measure: t({ zh: "被遮住的权重之和", en: "weight on masked keys" }),
    }),
    noPositions: assertion(cards.noPositions, {
      name: "check.positions",
      code: `${t({ zh: "# 这项检查先关掉因果掩码", en: "# causal mask off for this one" })}\nassert not torch.allclose(attn(x[perm]), attn(x)[perm])`,
      measure: t({ zh: "打乱后多出来的变化", en: "change beyond the shuffle" }),
    }),
    noSqrt: assertion(cards.noSqrt, {
      name: "check.sqrt",
      code: `${t({ zh: `# 随机初始化，d = ${initWidth}`, en: `# random init, d = ${initWidth}` })}\nassert 0.5 < score.std() < 2`,
      measure: t({ zh: "分数的标准差", en: "std of the scores" }),
    }),
    longKey: assertion(cards.longKey, {
      name: "check.keys",
      code: `length = key.norm(dim=-1)\nassert length.max() < ${keyLimit} * length.median()`,
      measure: t({ zh: "最长键 ÷ 中位数", en: "longest ÷ median key" }),
    }),
  });

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
      for (const bug of BUGS) {
        switches[bug].show(bugs[bug]);
        rows[bug].classList.toggle("on", bugs[bug]);
        cards[bug].classList.toggle("on", bugs[bug]);
        cards[bug].hidden = open !== bug;
      }
      always.hidden = open !== "rows";
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
      const verdicts = { rows: positive && worst < 1e-9, multiply: leaked === 0 };
      checks.rows.show(verdicts.rows, exactly(worst, 3));
      checks.multiply.show(verdicts.multiply, exactly(leaked, 3));

      // shuffle the sentence (read it backwards), mask off: do the outputs only follow their tokens?
      const plain = run(head, bugs, reading, false, stretch).out;
      const shuffled = run(head, bugs, reversed, false, stretch).out;
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
      verdicts.longKey = ratio < keyLimit;
      checks.longKey.show(verdicts.longKey, fixed(ratio));

      for (const [name, ok] of Object.entries(verdicts)) {
        const text = ok ? "✓" : "✗";
        if (marks[name].textContent !== text) marks[name].textContent = text;
        marks[name].classList.toggle("fails", !ok);
      }
      out.show({ failing: `${Object.values(verdicts).filter((ok) => !ok).length} / 5` });
    },
  });
}
