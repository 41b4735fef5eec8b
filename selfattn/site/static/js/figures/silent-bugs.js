// F26: four bugs that never raise, each on a switch, and the assertion that catches each. Our
// toy head has no positional encoding, so that switch starts on; switching it off adds RoPE
// (q and k at position p turned by p rad), which the head was never fitted with. The picture
// is the map with the checks drawn where they look: each row's sum at its end, the future
// triangle outlined (red where it leaks weight), each key's length under its column against
// the limit (red past it). Each switch carries its assertion's mark, ✓ or ✗, and the number it
// compares (the code on hover and for a screen reader): no list of checks beside the map.

import { applyMask, project, softmax, turn, weightedSum } from "../attention.js";
import { figure } from "../figure.js";
import { t } from "../i18n.js";
import { toggle } from "../kit/controls.js";
import { html, svg } from "../kit/dom.js";
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
  // the checks drawn on the map where they look: a column of row sums past the cells, the
  // future's outline over them, and, where the reference square stood (figures.css hides
  // it), a strip of key lengths under the columns. The grid's own geometry (kit/grid.js):
  // 48-unit cells from 46 units down; the sums' column 34 wide
  const CELL = 48,
    TOP = 46;
  const left = Number(map.root.querySelector(".row-outline")?.getAttribute("x"));
  const right = left + n * CELL,
    bottom = TOP + n * CELL;
  const box = map.root.viewBox.baseVal;
  map.root.setAttribute("viewBox", `0 0 ${box.width + 34} ${box.height}`);
  const on = (/** @type {keyof SVGElementTagNameMap} */ tag, /** @type {Record<string, string|number>} */ attrs) =>
    svg(tag, attrs, map.root);
  const sumAt = right + 17;
  setSvg(on("text", { class: "grid-label", x: sumAt, y: TOP - 8 }), "Σ");
  const sums = tokens.map((token, i) =>
    on("text", { class: "grid-label sum", x: sumAt, y: TOP + (i + 0.5) * CELL + 4, "data-readout": `sum.${token}` }),
  );
  // the cells of j > i, a staircase from the top row's second cell to the fifth row's end
  const stairs = [
    [left + CELL, TOP],
    [right, TOP],
    [right, TOP + (n - 1) * CELL],
  ];
  for (let k = n - 1; k >= 1; k -= 1)
    stairs.push([left + k * CELL, TOP + k * CELL], [left + k * CELL, TOP + (k - 1) * CELL]);
  const futureOutline = on("polygon", { class: "future masked", points: stairs.map((p) => p.join(",")).join(" ") });
  // a key as long as the limit's line fails its check
  const LIMIT = bottom + 8,
    FOOT = box.height - 6;
  setSvg(on("text", { class: "grid-label row", x: left - 6, y: FOOT }), "|k|");
  on("line", { class: "key-limit", x1: left + 4, x2: right - 4, y1: LIMIT, y2: LIMIT });
  const keyBars = tokens.map((token, j) =>
    on("rect", { class: "key-length", x: left + (j + 0.5) * CELL - 6, width: 12, "data-token": token }),
  );
  const labels = {
    multiply: t({ zh: "掩码用 × 0", en: "Mask by × 0" }),
    noPositions: t({ zh: "没有位置信息", en: "No positions" }),
    noSqrt: t({ zh: "漏掉 √d", en: "No √d" }),
    longKey: t({ zh: "键没有归一化", en: "Unnormalised keys" }),
  };
  // each check: the name its verdict is read by, and its assertion (spoken, and shown on hover)
  const CHECKS = [
    ["multiply", "mask", "w[future].sum() == 0"],
    ["noPositions", "positions", "attn(x[perm]) != attn(x)[perm]"],
    ["noSqrt", "sqrt", `0.5 < score.std() < 2  # d = ${initWidth}`],
    ["longKey", "keys", `|k|.max() / median(|k|) < ${keyLimit}`],
  ];
  const out = readouts({ failing: t({ zh: "没通过的断言", en: "assertions failing" }) }, { key: "failing" });
  const switches = Object.fromEntries(
    BUGS.map((bug) => [
      bug,
      toggle(controls, { label: labels[bug], name: bug, onChange: (v) => fig.set({ [bug]: v }) }),
    ]),
  );
  // each switch carries its assertion's verdict and the number it compares: the checks are a
  // row of marks on the controls, not a list beside the map
  const rows = Object.fromEntries(
    CHECKS.map(([bug, name, code]) => {
      const g = switches[bug].el;
      g.title = code;
      const verdict = html("span", { class: "check-verdict", "data-readout": `check.${name}` });
      const value = html("span", { class: "check-value", "data-readout": `check.${name}.value` });
      g.append(html("span", { class: "check", "aria-label": code }, verdict, value));
      return [name, { g, verdict, value }];
    }),
  );
  /** @param {string} name @param {boolean} pass @param {string} number */
  const verdictOf = (name, pass, number) => {
    const { g, verdict, value } = rows[name];
    const word = pass ? "✓" : "✗";
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

      // the row check everyone runs is each row's Σ, drawn on the map: 1 in every state here
      let leaked = 0;
      W.forEach((row, i) => {
        const sum = row.reduce((a, b) => a + b, 0);
        sums[i].textContent = exactly(Math.abs(sum - 1), 2) === "0" ? "1" : fixed(sum, 2);
        row.forEach((w, j) => {
          if (future(i, j)) leaked += w;
        });
      });
      futureOutline.classList.toggle("wrong", leaked > 0);
      const verdicts = [verdictOf("mask", leaked === 0, exactly(leaked, 3))];

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
      // each key's length against the limit, keyLimit × the median: past it, clipped and red
      lengths.forEach((l, j) => {
        const over = l >= keyLimit * median;
        const h = Math.min(1, l / (keyLimit * median)) * (FOOT - LIMIT);
        keyBars[j].setAttribute("y", String(FOOT - h));
        keyBars[j].setAttribute("height", String(h));
        keyBars[j].classList.toggle("wrong", over);
      });
      verdicts.push(verdictOf("keys", ratio < keyLimit, fixed(ratio)));

      out.show({ failing: `${verdicts.filter((ok) => !ok).length} / ${verdicts.length}` });
    },
  });
}
