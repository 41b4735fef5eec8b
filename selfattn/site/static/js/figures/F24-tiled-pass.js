// F24: row it streamed over the keys in tiles, as a tiled kernel computes it. A running max
// m, a running sum ℓ and an unnormalised accumulator, rescaled by exp(m_old − m_new) when the
// max grows; the partial output (purple) walks across the values (green) and lands exactly on
// the full pass's output. Three classic bugs (red) land it somewhere else.

import { onlineSoftmax } from "../attention.js";
import { outputBytes, scoreBytes } from "../cost.js";
import { clampNumber, figure } from "../figure.js";
import { t } from "../i18n.js";
import { choices } from "../kit/controls.js";
import { svg } from "../kit/dom.js";
import { fixed, grouped, size, vector } from "../kit/format.js";
import { setHtml } from "../kit/notation.js";
import { around, arrow, makePlane, untangle } from "../kit/plane.js";
import { player } from "../kit/player.js";
import { stage } from "../kit/stage.js";
import { point, valueArrows } from "../weighted-sum.js";

const TILES = [1, 2, 3];
const BUGS = ["none", "rescale", "divide", "reset"];
const TICK_MS = 700;

/** @param {HTMLElement} el @param {import("../kit/head.js").Head} head @param {import("../kit/head.js").Article} article */
export default function (el, head, article) {
  const LONG = article.longContext;
  const { tokens } = head;
  const it = head.index("it"),
    and = head.index("and"),
    n = tokens.length;
  const { S, V, out } = head.run();
  const d = V[0].length;
  /** Every state of every tile size and bug, computed once. */
  const runs = Object.fromEntries(
    TILES.map((tile) => {
      const carried = onlineSoftmax(S[and], V, tile).at(-1);
      return [
        tile,
        {
          none: onlineSoftmax(S[it], V, tile),
          rescale: onlineSoftmax(S[it], V, tile, { bug: "rescale" }),
          divide: onlineSoftmax(S[it], V, tile, { bug: "divide" }),
          reset: onlineSoftmax(S[it], V, tile, { start: carried }),
        },
      ];
    }),
  );
  const everyPoint = Object.values(runs).flatMap((r) =>
    Object.values(r).flatMap((states) => states.map((s) => s.out).filter((p) => p !== null)),
  );
  const { picture, controls, readouts, note } = stage(el);

  // the keys as they arrive: one box a token, grouped in tiles
  const strip = svg("svg", {
    class: "tile-strip",
    viewBox: `0 0 ${n * 56 + (n - 1) * 10} 58`,
    role: "img",
    "aria-label": t({ zh: "it 那一行的键，按块到达", en: "The keys of row it, arriving in tiles" }),
  });
  picture.append(strip);
  const boxes = tokens.map((token, j) => {
    const g = svg("g", { class: "key-box" }, strip);
    const rect = svg("rect", { y: 4, width: 50, height: 50, rx: 4 }, g);
    const name = svg("text", { y: 24, class: "token" }, g);
    name.textContent = token;
    const score = svg("text", { y: 44, class: "score" }, g);
    score.textContent = fixed(S[it][j]);
    return { g, rect, name, score };
  });

  const plane = makePlane({
    ...around([...V, ...everyPoint], { pad: 0.35 }),
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

  const tileChoice = choices(controls, {
    legend: t({ zh: "每块的键数", en: "Keys per tile" }),
    name: "tile",
    options: TILES.map((k) => ({ value: String(k), label: String(k) })),
    onInput: (v) => fig.set({ tile: Number(v), step: 0 }),
  });
  const steps = player(controls, {
    label: t({ zh: "一块一块地走", en: "Tile by tile" }),
    at: () => fig.state.step,
    last: () => runs[fig.state.tile].none.length - 1,
    go: (step) => fig.set({ step }),
    tick: TICK_MS,
    words: { back: { zh: "◀ 退一块", en: "◀ Back a tile" }, next: { zh: "下一块 ▶", en: "Next tile ▶" } },
  });
  const bugChoice = choices(controls, {
    legend: t({ zh: "经典的分块错误", en: "A classic tiling bug" }),
    name: "bug",
    options: [
      { value: "none", label: t({ zh: "无", en: "none" }) },
      { value: "rescale", label: t({ zh: "忘了重新缩放", en: "no rescale" }) },
      { value: "divide", label: t({ zh: "循环里就除", en: "divide in the loop" }) },
      { value: "reset", label: t({ zh: "累加器没清零", en: "no reset" }) },
    ],
    onInput: (bug) => fig.set({ bug }),
  });
  const readout = readouts(
    {
      output: t({ zh: "it 的输出", en: "output of it" }),
      rescale: t({ zh: "缩放因子", en: "rescale" }),
    },
    { key: "output" },
  );
  note(
    t({
      zh: `绿色：值向量；紫色：it 目前的输出，圆圈是完整计算的输出。写出的数：分块 n·d = ${grouped(n * d)} 个，完整 n² = ${grouped(n * n)} 个分数；n = ${grouped(LONG)} 时一个头写 ${size(outputBytes(LONG))}，而不是 ${size(scoreBytes(LONG))}。`,
      en: `Green: the values; purple: the output of it so far, the ring the full pass's output. Numbers written: tiled n·d = ${grouped(n * d)}, full n² = ${grouped(n * n)} scores; at n = ${grouped(LONG)} one head writes ${size(outputBytes(LONG))}, not ${size(scoreBytes(LONG))}.`,
    }),
  );
  const bugNote = note("");
  const BUG_NOTES = {
    none: t({
      zh: "每块之后 ℓ 和累加器都乘上 exp(m_old − m_new)，最后只除一次：与一次算完完全相同。",
      en: "After each tile ℓ and the accumulator are multiplied by exp(m_old − m_new), and divided once at the end: exactly the full pass.",
    }),
    rescale: t({
      zh: "最大值变大时没有缩放旧的项：它们按旧的 m 计，分量过大。只有最大值在第一块之后才出现时才会暴露。",
      en: "When the max grows, the old terms keep their old m and weigh too much. It only shows when the max arrives after the first tile.",
    }),
    divide: t({
      zh: "每块之后都除以 ℓ，下一块却把它当成没除过：早到的键被一再缩小。",
      en: "Dividing by ℓ after every tile, then adding the next tile as if it had not: the early keys shrink again and again.",
    }),
    reset: t({
      zh: "从上一行 and 最后的 m、ℓ 和累加器接着算：and 那一行混进了 it 的输出。",
      en: "Starting from the final m, ℓ and accumulator of the previous row (the row of and): that row leaks into the output of it.",
    }),
  };

  const fig = figure(el, {
    state: { tile: 1, step: 0, bug: "none" },
    clamp: (s) => {
      const tile = TILES.includes(Number(s.tile)) ? Number(s.tile) : 1;
      const last = runs[tile].none.length - 1;
      return {
        tile,
        step: Math.round(clampNumber(s.step, 0, last, 0)),
        bug: BUGS.includes(s.bug) ? s.bug : "none",
      };
    },
    discrete: ["step", "tile"],
    draw({ tile, step, bug }) {
      const states = runs[tile][bug];
      const last = states.length - 1;
      const here = states[step];
      const before = step > 0 ? states[step - 1] : null;
      const broken = bug !== "none" && step === last && vector(here.out ?? [0, 0]) !== vector(out[it]);
      tileChoice.show(String(tile));
      bugChoice.show(bug);
      steps.show(step, last);
      el.classList.toggle("bug-on", bug !== "none");
      // boxes: arrived, the newest tile, still to come; a gap between tiles
      boxes.forEach(({ g, rect, name, score }, j) => {
        const gaps = Math.ceil(n / tile) - 1,
          shift = ((n - 1) * 10 - gaps * 10) / 2;
        const x = shift + j * 56 + Math.floor(j / tile) * 10;
        rect.setAttribute("x", String(x));
        name.setAttribute("x", String(x + 25));
        score.setAttribute("x", String(x + 25));
        g.classList.toggle("arrived", j < here.keys);
        g.classList.toggle("newest", before !== null && j >= before.keys && j < here.keys);
      });
      const path = states.slice(0, step + 1).filter((s) => s.out !== null);
      trail.setAttribute(
        "points",
        path
          .map((s) => `${plane.sx(/** @type {number[]} */ (s.out)[0])},${plane.sy(/** @type {number[]} */ (s.out)[1])}`)
          .join(" "),
      );
      trail.classList.toggle("wrong", bug !== "none");
      right.set(bug === "none" ? here.out : null);
      wrong.set(bug !== "none" ? here.out : null);
      tip.set(step === last && bug === "none" ? here.out : null);
      untangle(plane);
      setHtml(bugNote, BUG_NOTES[bug]);
      bugNote.classList.toggle("wrong", broken);
      readout.show({
        output: here.out ? vector(here.out) : "—",
        rescale:
          here.rescale === null
            ? "—"
            : here.rescale === 1
              ? t({ zh: "1（m 未变）", en: "1 (m unchanged)" })
              : `${fixed(here.rescale, 3)}${bug === "rescale" ? t({ zh: "（漏了）", en: " (skipped)" }) : ""}`,
      });
    },
  });
}
