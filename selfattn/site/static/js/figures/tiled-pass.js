// F24: row it streamed over the keys in tiles, as a tiled kernel computes it. The running
// quantities are drawn, not printed: the scores that have arrived as bars under the running
// max m (a line that jumps when a tile brings a larger score), each key's term exp(s − m)
// (the old ones shrink when m jumps), and the running sum ℓ as those terms laid end to end,
// beside a pale ghost of the sum before the rescale: the factor exp(m_old − m_new) is the
// ratio of the two lengths. On the plane the partial output (purple) walks across the values
// (green) and lands on the full pass's output; three classic bugs (red) land it elsewhere.

import { onlineSoftmax } from "../attention.js";
import { clampNumber, figure } from "../figure.js";
import { t } from "../i18n.js";
import { menu } from "../kit/controls.js";
import { svg } from "../kit/dom.js";
import { fixed, vector } from "../kit/format.js";
import { setHtml, setSvg } from "../kit/notation.js";
import { around, arrow, makePlane, untangle } from "../kit/plane.js";
import { player } from "../kit/player.js";
import { stage } from "../kit/stage.js";
import { point, valueArrows } from "../weighted-sum.js";

const TILES = [1, 2, 3];
const BUGS = ["none", "rescale", "divide", "reset"];

// the running picture, in its own units: three bands (scores and m, the terms, ℓ)
const W = 400,
  SIDE = 12,
  GAP = 10; // between tiles
const SCORES = { top: 44, bottom: 160 }; // the band of the score bars; m is a line in it
// the terms' title an em clear of the keys' names above it (at 212 it read as one block with them)
const TERMS = { top: 222, bottom: 298 }; // exp(s − m) ∈ (0, 1]: 1 is the band's top
const SUM = { y: 332, height: 22 }; // ℓ, one bar of the terms end to end
const H = 366;

/** @param {HTMLElement} el @param {import("../kit/head.js").Head} head */
export default function (el, head) {
  const { tokens } = head;
  const it = head.index("it"),
    and = head.index("and"),
    n = tokens.length;
  const { S, V, out } = head.run();
  const s = S[it];
  /** Every state of every tile size and bug, computed once; "reset" starts from and's end. */
  const runs = Object.fromEntries(
    TILES.map((tile) => {
      const carried = onlineSoftmax(S[and], V, tile).at(-1);
      return [
        tile,
        {
          none: onlineSoftmax(s, V, tile),
          rescale: onlineSoftmax(s, V, tile, { bug: "rescale" }),
          divide: onlineSoftmax(s, V, tile, { bug: "divide" }),
          reset: onlineSoftmax(s, V, tile, { start: carried }),
        },
      ];
    }),
  );
  const every = Object.values(runs).flatMap((r) => Object.values(r).flat());
  const { picture, controls, readouts, note } = stage(el);

  // --- the running picture: one scale per band, fitted to every state the controls reach
  const root = svg("svg", {
    class: "running",
    viewBox: `0 0 ${W} ${H}`,
    role: "img",
    "aria-label": t({
      zh: "it 那一行按块到达的分数、运行最大值 m、每个键的 exp(s − m) 和运行和 ℓ",
      en: "The scores of row it arriving in tiles, the running max m, each key's exp(s − m) and the running sum ℓ",
    }),
  });
  picture.append(root);
  const hi = Math.max(...s, ...every.map((x) => x.m).filter(Number.isFinite)),
    lo = Math.min(0, ...s);
  const ys = (/** @type {number} */ v) => SCORES.bottom - ((v - lo) / (hi - lo)) * (SCORES.bottom - SCORES.top);
  const zero = ys(0);
  const yt = (/** @type {number} */ p) => TERMS.bottom - p * (TERMS.bottom - TERMS.top);
  const most = Math.max(...every.map((x) => x.l), ...every.map((x) => x.terms.reduce((a, b) => a + b, 0)));
  const unit = (W - 2 * SIDE - 78) / most; // room after the longest ℓ for its label
  const column = (W - 2 * SIDE - (n - 1) * GAP) / n,
    barWidth = Math.min(24, column * 0.5);

  const layer = (/** @type {string} */ name) => svg("g", { class: name }, root);
  const under = layer("under"),
    marks = layer("marks"),
    labels = layer("labels");
  const title = (/** @type {number} */ y, /** @type {string} */ text) => {
    const el = svg("text", { x: SIDE, y, class: "grid-title start" }, labels);
    setSvg(el, text);
    return el;
  };
  title(16, t({ zh: "到达的分数 s，和目前的最大值 m", en: "Scores s as they arrive, and the max m so far" }));
  title(
    TERMS.top - 16,
    t({ zh: "每个键的项 exp(s − m)：ℓ 里它的那一份", en: "Each key's term exp(s − m), its share of ℓ" }),
  );
  const newest = svg(
    "rect",
    { class: "wash", y: SCORES.top - 10, height: TERMS.bottom - SCORES.top + 14, rx: 5 },
    under,
  );
  svg("line", { x1: SIDE, x2: W - SIDE, y1: zero, y2: zero, class: "baseline" }, marks);
  svg("line", { x1: SIDE, x2: W - SIDE, y1: TERMS.bottom, y2: TERMS.bottom, class: "baseline" }, marks);
  svg("line", { x1: SIDE, x2: W - SIDE, y1: yt(1), y2: yt(1), class: "top-edge" }, marks);
  svg("text", { x: W - SIDE, y: yt(1) - 4, class: "tick end" }, labels).textContent = "1";
  const keys = tokens.map((token) => {
    const g = svg("g", { class: "key" }, marks);
    const slot = svg("rect", { class: "pending", width: barWidth, rx: 2, y: SCORES.top, height: zero - SCORES.top }, g);
    const score = svg("rect", { class: "bar", width: barWidth }, g);
    const before = svg("rect", { class: "ghost", width: barWidth }, g);
    const term = svg("rect", { class: "bar term", width: barWidth }, g);
    const name = svg("text", { y: Math.max(zero, ys(lo)) + 16, class: "bar-label" }, labels);
    name.textContent = token;
    return { g, slot, score, before, term, name };
  });
  // m: a line over the arrived keys; where it stood before a jump, a thin line and an arrow up
  const mOld = svg("line", { class: "m-before" }, marks);
  const jump = svg("path", { class: "m-jump" }, marks);
  const mLine = svg("line", { class: "m-line" }, marks);
  const mText = svg("text", { class: "m-label", "text-anchor": "end", "data-drawn": "m" }, labels);
  // ℓ: the sum before this tile's rescale (ghost), the carried-over part, then each key's term
  const lBefore = svg("rect", { class: "ghost", y: SUM.y, height: SUM.height }, marks);
  const carried = svg("rect", { class: "carried", y: SUM.y, height: SUM.height }, marks);
  const segments = tokens.map(() => svg("rect", { class: "segment", y: SUM.y, height: SUM.height }, marks));
  const lText = svg("text", { class: "l-label", y: SUM.y + SUM.height / 2 + 5, "data-drawn": "l" }, labels);
  const bracket = svg("path", { class: "rescale-bracket" }, marks);
  const rText = svg("text", { class: "rescale-label", x: SIDE, "data-drawn": "rescale" }, labels);

  // --- the plane: the values, and the output so far
  const plane = makePlane({
    zoom: 2, // its data spans a few units: drawn 2× the world scale, and says so
    ...around([...V, ...every.map((x) => x.out).filter((p) => p !== null)], { pad: 0.35 }),
    unit: 150,
    label: t({
      zh: "六个值向量，以及 it 的输出随每一块移动",
      en: "The six values, and the output of it moving as each tile arrives",
    }),
  });
  picture.append(plane.root);
  valueArrows(plane, tokens, V);
  const landing = svg("circle", { r: 9, class: "landing" }, plane.layers.under);
  landing.setAttribute("cx", String(plane.sx(out[it][0])));
  landing.setAttribute("cy", String(plane.sy(out[it][1])));
  const trail = svg("polyline", { class: "trail" }, plane.layers.under);
  const right = arrow(plane, { cls: "output", label: "out" });
  const wrong = arrow(plane, { cls: "wrong", label: "out" });
  const tip = point(plane, { cls: "output", label: "" });

  // --- four controls: back, next, the tile size and the bug
  const steps = player(controls, {
    label: t({ zh: "一块一块地走", en: "Tile by tile" }),
    at: () => fig.state.step,
    last: () => runs[fig.state.tile].none.length - 1,
    go: (step) => fig.set({ step }),
    words: { back: { zh: "◀ 退一块", en: "◀ Back" }, next: { zh: "下一块 ▶", en: "Next ▶" } },
    parts: ["back", "next"],
  });
  const tileChoice = menu(controls, {
    label: t({ zh: "每块的键数", en: "Keys per tile" }),
    name: "tile",
    options: TILES.map((k) => ({ value: String(k), label: String(k) })),
    onInput: (v) => fig.set({ tile: Number(v), step: 0 }),
  });
  const bugChoice = menu(controls, {
    label: t({ zh: "经典的分块错误", en: "A classic tiling bug" }),
    name: "bug",
    options: [
      { value: "none", label: t({ zh: "无", en: "none" }) },
      { value: "rescale", label: t({ zh: "忘了重新缩放", en: "no rescale" }) },
      { value: "divide", label: t({ zh: "循环里就除", en: "divide in the loop" }) },
      { value: "reset", label: t({ zh: "累加器没清零", en: "no reset" }) },
    ],
    onInput: (bug) => fig.set({ bug }),
  });
  const readout = readouts({ output: t({ zh: "it 的输出", en: "output of it" }) }, { key: "output" });
  const bugNote = note("");
  const BUG_NOTES = {
    none: t({
      zh: "m 一跳高，旧的项和 ℓ 就都乘上 exp(m_old − m_new)（淡色是缩放前的长度）；最后只除一次，与一次算完完全相同。",
      en: "When m jumps, the old terms and ℓ shrink by exp(m_old − m_new) (pale: before); one division at the end gives exactly the full pass.",
    }),
    rescale: t({
      zh: "m 变大时没有缩放旧的项（红色）：它们按旧的 m 计，分量过大。只有最大值在第一块之后才出现时才会暴露。",
      en: "When m grows, the old terms (red) keep their old m and weigh too much. It only shows when the max arrives after the first tile.",
    }),
    divide: t({
      zh: "m 和 ℓ 都对，错在累加器：每块之后都除以 ℓ，下一块却当它没除过，早到的键被一再缩小。",
      en: "m and ℓ are right, the accumulator is not: divided by ℓ after every tile and added to as if it were not, so early keys shrink again and again.",
    }),
    reset: t({
      zh: "从上一行 and 最后的 m、ℓ 和累加器接着算（红色）：and 那一行混进了 it 的输出。",
      en: "Starting from the final m, ℓ and accumulator of the row of and (red): that row leaks into the output of it.",
    }),
  };

  /** where key j's column starts, with a gap between tiles; the strip is centred */
  const left = (/** @type {number} */ j, /** @type {number} */ tile) => {
    const gaps = Math.ceil(n / tile) - 1;
    return SIDE + ((n - 1 - gaps) * GAP) / 2 + j * column + Math.floor(j / tile) * GAP;
  };
  const set = (/** @type {Element} */ e, /** @type {Record<string, number|string>} */ attrs) => {
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, typeof v === "number" ? v.toFixed(2) : v);
  };
  const show = (/** @type {SVGElement} */ e, /** @type {boolean} */ on) => {
    e.style.display = on ? "" : "none";
  };

  const fig = figure(el, {
    state: { tile: 1, step: 0, bug: "none" },
    clamp: (st) => {
      const tile = TILES.includes(Number(st.tile)) ? Number(st.tile) : 1;
      const last = runs[tile].none.length - 1;
      return {
        tile,
        step: Math.round(clampNumber(st.step, 0, last, 0)),
        bug: BUGS.includes(st.bug) ? st.bug : "none",
      };
    },
    discrete: ["step", "tile", "bug"],
    draw({ tile, step, bug }) {
      const states = runs[tile][bug];
      const last = states.length - 1;
      const here = states[step];
      const before = step > 0 ? states[step - 1] : null;
      const fresh = before === null ? 0 : before.keys; // the first key of the newest tile
      tileChoice.show(String(tile));
      bugChoice.show(bug);
      steps.show(step, last);
      el.classList.toggle("bug-on", bug !== "none");
      const correct = runs[tile].none[step];

      // the keys: arrived (a score bar and a term), pending (an empty slot), the newest washed
      keys.forEach((k, j) => {
        const x = left(j, tile) + (column - barWidth) / 2;
        const seen = j < here.keys;
        k.g.setAttribute("transform", `translate(${x.toFixed(2)} 0)`);
        set(k.name, { x: x + barWidth / 2 });
        k.name.classList.toggle("pending", !seen);
        show(k.slot, !seen);
        show(k.score, seen);
        show(k.term, seen);
        set(k.score, { y: Math.min(ys(s[j]), zero), height: Math.max(0.5, Math.abs(ys(s[j]) - zero)) });
        k.score.classList.toggle("neg", s[j] < 0);
        const p = seen ? here.terms[j] : 0;
        set(k.term, { y: yt(p), height: Math.max(0.5, TERMS.bottom - yt(p)) });
        // a term the rescale should have shrunk, and did not
        k.term.classList.toggle("wrong", bug === "rescale" && seen && Math.abs(p - correct.terms[j]) > 1e-12);
        // the height it had before this tile's rescale
        const was =
          before !== null && j < before.keys && here.rescale !== null && here.rescale < 1 && bug !== "rescale";
        show(k.before, was);
        if (was) set(k.before, { y: yt(before.terms[j]), height: TERMS.bottom - yt(before.terms[j]) });
      });
      show(newest, step > 0);
      if (step > 0) {
        const a = left(fresh, tile) - GAP / 2 + 2,
          b = left(here.keys - 1, tile) + column + GAP / 2 - 2;
        set(newest, { x: a, width: b - a });
      }

      // m: over the keys seen (all of them while it is a carried-over max)
      const mFinite = Number.isFinite(here.m);
      const from = left(0, tile),
        to = here.keys ? left(here.keys - 1, tile) + column : W - SIDE;
      show(mLine, mFinite);
      show(mText, mFinite);
      mLine.classList.toggle("wrong", bug === "reset" && here.keys === 0);
      mText.classList.toggle("wrong", bug === "reset" && here.keys === 0);
      if (mFinite) {
        set(mLine, { x1: from, x2: to, y1: ys(here.m), y2: ys(here.m) });
        // over the line's right end, or its left where the line is still too short to hold it
        const short = to - from < 90;
        // a max carried over before any key arrived runs across the empty slots, and a line too
        // short to hold its name would push it onto them: named above them
        const y = here.keys === 0 || short ? SCORES.top - 5 : ys(here.m) - 6;
        set(mText, { x: short ? from : to, y, "text-anchor": short ? "start" : "end" });
        setSvg(
          mText,
          bug === "reset" && here.keys === 0
            ? t({ zh: `m = ${fixed(here.m)}（and 的）`, en: `m = ${fixed(here.m)} (of and)` })
            : `m = ${fixed(here.m)}`,
        );
      }
      const jumped = before !== null && Number.isFinite(before.m) && here.m > before.m;
      show(mOld, jumped);
      show(jump, jumped);
      if (jumped) {
        // the old level runs on past the keys to the arrow that lifts it, right of the new line
        const x = Math.min(to + 10, W - 6);
        set(mOld, { x1: from, x2: x + 4, y1: ys(before.m), y2: ys(before.m) });
        const y0 = ys(before.m) - 2,
          y1 = ys(here.m) + 3;
        jump.setAttribute("d", `M ${x} ${y0.toFixed(2)} V ${y1.toFixed(2)} m -4 5 l 4 -5 l 4 5`);
      }

      // ℓ: the carried-over part, then each key's term; the ghost is ℓ before this tile's rescale
      const keep = here.terms.reduce((a, b) => a + b, 0);
      const rest = here.l - keep; // what a carried-over start left
      let x = SIDE;
      show(carried, rest > 1e-12);
      set(carried, { x, width: Math.max(0, rest * unit) });
      x += Math.max(0, rest) * unit;
      segments.forEach((seg, j) => {
        const w = j < here.keys ? here.terms[j] * unit : 0;
        show(seg, j < here.keys);
        set(seg, { x, width: w });
        seg.classList.toggle("newest", j >= fresh && j < here.keys && step > 0);
        seg.classList.toggle(
          "wrong",
          bug === "rescale" && j < here.keys && Math.abs(here.terms[j] - correct.terms[j]) > 1e-12,
        );
        x += w;
      });
      show(lText, here.l > 0);
      set(lText, { x: SIDE + here.l * unit + 6 });
      setSvg(lText, `ℓ = ${fixed(here.l, 3)}`);
      // the rescale this tile did to what was there: the ghost, and a bracket from it to the shrunk length
      // (the no-rescale bug shrinks nothing: no ghost, no bracket, only the label in red)
      const shrank = before !== null && here.rescale !== null && before.l > 0 && here.rescale < 1 && bug !== "rescale";
      const oldEnd = SIDE + (before?.l ?? 0) * unit,
        newEnd = SIDE + (before?.l ?? 0) * (bug === "rescale" ? 1 : (here.rescale ?? 1)) * unit;
      show(lBefore, shrank);
      show(bracket, shrank);
      show(rText, here.rescale !== null && before !== null && before.l > 0);
      set(lBefore, { x: SIDE, width: Math.max(0, oldEnd - SIDE) });
      const by = SUM.y - 7;
      bracket.setAttribute(
        "d",
        `M ${newEnd.toFixed(2)} ${SUM.y - 2} V ${by} H ${oldEnd.toFixed(2)} V ${SUM.y - 2} M ${(newEnd + 5).toFixed(2)} ${by - 4} l -5 4 l 5 4`,
      );
      bracket.classList.toggle("wrong", bug === "rescale");
      rText.classList.toggle("wrong", bug === "rescale" && here.rescale !== null && here.rescale < 1);
      // half an em higher: m_old and m_new hang their subscripts toward the bracket
      set(rText, { y: by - 6, dy: "-0.5em" });
      if (here.rescale !== null) {
        const factor = `× exp(m_old − m_new) = ${fixed(here.rescale, 3)}`;
        setSvg(
          rText,
          here.rescale === 1
            ? t({ zh: "× 1：m 没变", en: "× 1: m did not move" })
            : bug === "rescale"
              ? t({ zh: `× 1，应当 × ${fixed(here.rescale, 3)}`, en: `× 1, not × ${fixed(here.rescale, 3)}` })
              : factor,
        );
      }

      // the plane
      const path = states.slice(0, step + 1).filter((st) => st.out !== null);
      trail.setAttribute(
        "points",
        path
          .map(
            (st) => `${plane.sx(/** @type {number[]} */ (st.out)[0])},${plane.sy(/** @type {number[]} */ (st.out)[1])}`,
          )
          .join(" "),
      );
      trail.classList.toggle("wrong", bug !== "none");
      right.set(bug === "none" ? here.out : null);
      wrong.set(bug !== "none" ? here.out : null);
      tip.set(step === last && bug === "none" ? here.out : null);
      untangle(plane);
      setHtml(bugNote, BUG_NOTES[bug]);
      bugNote.classList.toggle(
        "wrong",
        bug !== "none" && step === last && vector(here.out ?? [0, 0]) !== vector(out[it]),
      );
      readout.show({ output: here.out ? vector(here.out) : "—" });
    },
  });
}
