// F24: row it streamed over the keys in tiles, as a tiled kernel computes it. One strip over
// the tiles draws what the kernel keeps after each one, a column per tile, the newest tile's
// numbers, named in words ("max m 1.22"), on its marks: the running sum ℓ (a bar: what was kept of the old
// sum, rescaled, under this tile's new terms, with an outline of ℓ before the rescale and the
// factor × over it), and under it each tile's scores with the running max m as a staircase.
// A rule stands between tiles; keys to come are faint names. On the plane the
// partial output (purple) walks across the values (green) and lands on the full pass's output;
// three classic bugs (red) land it elsewhere, and the strip shows in red which of m or ℓ went
// wrong.

import { onlineSoftmax } from "../attention.js";
import { clampNumber, figure } from "../figure.js";
import { t } from "../i18n.js";
import { choices } from "../kit/controls.js";
import { svg } from "../kit/dom.js";
import { fixed, vector } from "../kit/format.js";
import { setSvg } from "../kit/notation.js";
import { around, arrow, makePlane, untangle } from "../kit/plane.js";
import { player } from "../kit/player.js";
import { stage } from "../kit/stage.js";
import { point, valueArrows } from "../weighted-sum.js";

const TILES = [1, 2, 3];
const BUGS = ["none", "rescale", "divide", "reset"];

// the strip in the SVG's own units: the start column, then one column per tile; top to bottom
// ℓ's bars, then the scores with m over them (the output is the plane's and the read-out's)
const W = 460,
  H = 342,
  SIDE = 4,
  // the column of what the kernel holds before any key arrives
  START = 44,
  // between columns
  GAP = 8,
  // the strip's right margin: the last column's numbers end inside it on a phone
  END = 14;
// where the first tile starts
const X0 = SIDE + START + GAP;
// ℓ as a bar, two lines of numbers over its top
const BAND = { top: 60, bottom: 176 };
// the keys' scores, m a staircase over them
const SCORES = { top: 226, bottom: 310 };
// the keys' names
const NAME_Y = 330;

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
  const { picture, controls, readouts } = stage(el);

  const root = svg("svg", {
    class: "running",
    viewBox: `0 0 ${W} ${H}`,
    role: "img",
    "aria-label": t({
      zh: "每块之后核心保留的和 ℓ，和各块的分数与最大值 m",
      en: "What the kernel keeps after each tile: the sum ℓ; each tile's scores and the max m",
    }),
  });
  picture.append(root);
  const layer = (/** @type {string} */ name) => svg("g", { class: name }, root);
  const under = layer("under"),
    marks = layer("marks"),
    labels = layer("labels");
  const text = (/** @type {Record<string, number|string>} */ attrs, /** @type {string} */ words = "") => {
    const e = svg("text", attrs, labels);
    setSvg(e, words);
    return e;
  };

  // scales fitted to every state the controls reach
  const hi = Math.max(...s, ...every.map((x) => x.m).filter(Number.isFinite)),
    lo = Math.min(0, ...s);
  const ys = (/** @type {number} */ v) => SCORES.bottom - ((v - lo) / (hi - lo)) * (SCORES.bottom - SCORES.top);
  const zero = ys(0);
  // ℓ's scale: the largest sum the bug shown reaches, at any tile size
  const most = Object.fromEntries(
    BUGS.map((bug) => [bug, Math.max(...TILES.flatMap((k) => runs[k][bug].map((x) => x.l)))]),
  );
  let ell = most.none;
  const yl = (/** @type {number} */ l) => BAND.bottom - (l / ell) * (BAND.bottom - BAND.top);
  svg("line", { x1: X0 - GAP / 2, x2: W - SIDE, y1: zero, y2: zero, class: "baseline" }, marks);
  svg("line", { x1: SIDE, x2: W - SIDE, y1: BAND.bottom, y2: BAND.bottom, class: "baseline l-base" }, marks);

  // the wash over the newest tile's column, from the strip down through its keys
  const newest = svg("rect", { class: "wash", y: 6, height: NAME_Y + 8, rx: 5 }, under);
  // one column per possible tile (n of them at one key a tile) and the start column
  // a named number: "m 1.22", the number alone in a tspan
  const named = (/** @type {string} */ name) => {
    const e = text({ class: "cell" });
    svg("tspan", { class: "name" }, e).textContent = name;
    // a space's width off its name (SVG would collapse a space; U+00A0 is not in the face)
    return svg("tspan", { dx: 4 }, e);
  };
  // each named in words where its number is read (the strip's one read-out)
  const column = () => ({
    m: named(t({ zh: "最大 m", en: "max m" })),
    rescale: named(t({ zh: "缩放", en: "rescale" })),
    l: named(t({ zh: "和 ℓ", en: "sum ℓ" })),
    // wider than ℓ's bar: seen round it
    ghost: svg("rect", { class: "ghost", width: 32 }, marks),
    kept: svg("rect", { class: "kept", width: 24 }, marks),
    added: svg("rect", { class: "added", width: 24 }, marks),
    // a rule before each tile down through the scores and names (ground, as a gridline): the
    // tiles read as groups
    edge: svg("line", { class: "gridline", y1: BAND.bottom + 14, y2: NAME_Y + 8 }, under),
    step: svg("line", { class: "m-line" }, marks),
    rise: svg("line", { class: "m-rise" }, marks),
  });
  const columns = Array.from({ length: n + 1 }, column);
  text({ x: SIDE + START / 2, y: NAME_Y, class: "bar-label" }, t({ zh: "开始", en: "start" }));
  // each row named on its baseline, in the start column (at step 0 its own numbers name them)
  const rows = [
    text({ x: SIDE, y: BAND.bottom - 6, class: "row-name" }, t({ zh: "和 ℓ", en: "sum ℓ" })),
    text({ x: SIDE, y: zero - 6, class: "row-name" }, t({ zh: "分数", en: "score" })),
  ];
  const keys = tokens.map((token) => {
    const bar = svg("rect", { class: "bar", width: 18, "data-token": token }, marks);
    const name = text({ y: NAME_Y, class: "bar-label", "data-token": token }, token);
    return { bar, name };
  });

  // --- the plane: the values, and the output so far
  const plane = makePlane({
    // its data spans a few units: drawn 2× the world scale, and says so
    zoom: 2,
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
  const correct = arrow(plane, { cls: "output", label: "o_it" });
  const wrong = arrow(plane, { cls: "wrong", label: "o_it" });
  const tip = point(plane, { cls: "output", label: "" });

  // --- the controls: back, next, the tile size and the bug
  const steps = player(controls, {
    label: t({ zh: "一块一块地走", en: "Tile by tile" }),
    at: () => fig.state.step,
    last: () => runs[fig.state.tile].none.length - 1,
    go: (step) => fig.set({ step }),
    words: { back: { zh: "◀", en: "◀" }, next: { zh: "▶", en: "▶" } },
    parts: ["back", "next"],
  });
  // the arrows alone, so the four controls keep one row on a phone; their names are spoken
  for (const [name, words] of [
    ["back", { zh: "退一块", en: "Back a tile" }],
    ["next", { zh: "下一块", en: "Next tile" }],
  ])
    controls.querySelector(`button[name=${name}]`)?.setAttribute("aria-label", t(words));
  const tileChoice = choices(controls, {
    legend: t({ zh: "每块", en: "tile" }),
    name: "tile",
    options: TILES.map((k) => ({ value: String(k), label: String(k) })),
    // a new tile size keeps the keys already streamed (rounded up to a whole tile)
    onInput: (v) => {
      const tile = Number(v),
        seen = fig.state.step * fig.state.tile;
      fig.set({ tile, step: Math.min(Math.ceil(n / tile), Math.ceil(seen / tile)) });
    },
  });
  const bugChoice = choices(controls, {
    legend: t({ zh: "错误", en: "bug" }),
    name: "bug",
    options: [
      { value: "none", label: t({ zh: "无", en: "none" }) },
      { value: "rescale", label: t({ zh: "不缩放", en: "no rescale" }) },
      { value: "divide", label: t({ zh: "循环里就除", en: "early divide" }) },
      { value: "reset", label: t({ zh: "不清零", en: "no reset" }) },
    ],
    onInput: (bug) => fig.set({ bug }),
  });
  const readout = readouts({ output: t({ zh: "it 的输出", en: "output of it" }) }, { key: "output" });

  const set = (/** @type {Element} */ e, /** @type {Record<string, number|string>} */ attrs) => {
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, typeof v === "number" ? v.toFixed(2) : v);
  };
  const show = (/** @type {Element} */ e, /** @type {boolean} */ on) => {
    /** @type {SVGElement} */ (e).style.display = on ? "" : "none";
  };
  const host = (/** @type {Element} */ e) => /** @type {SVGElement} */ (e.tagName === "tspan" ? e.parentNode : e);
  const write = (/** @type {SVGElement} */ e, /** @type {string} */ words, /** @type {boolean} */ wrong) => {
    setSvg(e, words);
    host(e).classList.toggle("wrong", wrong);
  };
  const differs = (/** @type {number} */ a, /** @type {number} */ b) => !(Math.abs(a - b) <= 1e-12);

  const fig = figure(el, {
    // at rest the pass is finished, two keys a tile (three tiles: each a group of keys); a bug
    // switched here shows at once where it lands instead
    state: { tile: 2, step: runs[2].none.length - 1, bug: "none" },
    clamp: (st) => {
      const tile = TILES.includes(Number(st.tile)) ? Number(st.tile) : 2;
      const last = runs[tile].none.length - 1;
      return {
        tile,
        step: Math.round(clampNumber(st.step, 0, last, 0)),
        bug: BUGS.includes(st.bug) ? st.bug : "none",
      };
    },
    discrete: ["step", "tile", "bug"],
    draw({ tile, step, bug }) {
      const states = runs[tile][bug],
        right = runs[tile].none;
      const last = states.length - 1;
      ell = most[bug];
      tileChoice.show(String(tile));
      bugChoice.show(bug);
      steps.show(step, last);
      el.classList.toggle("bug-on", bug !== "none");
      // one tile's column
      const width = (W - END - X0 - (last - 1) * GAP) / last;
      const slot = width / tile;
      // column 0 is the start; column k the k-th tile
      const left = (/** @type {number} */ k) => (k === 0 ? SIDE : X0 + (k - 1) * (width + GAP));
      const span = (/** @type {number} */ k) => (k === 0 ? START : width);

      columns.forEach((c, k) => {
        const here = states[k],
          before = states[k - 1];
        const arrived = k <= step && here !== undefined;
        // the marks of every tile so far stay; the numbers are the newest tile's only, in its
        // wash, so the strip reads as a drawing with one column read out, not a table
        for (const e of [c.ghost, c.kept, c.added, c.step, c.rise]) show(e, arrived);
        for (const e of [c.m, c.rescale, c.l]) show(host(e), arrived && k === step);
        show(c.edge, k > 0 && k <= last);
        for (const e of [c.m, c.rescale, c.l]) {
          if (k === step) e.setAttribute("data-drawn", e === c.m ? "m" : e === c.l ? "l" : "rescale");
          else e.removeAttribute("data-drawn");
        }
        const x = left(k),
          mid = x + span(k) / 2;
        if (k > 0 && k <= last) set(c.edge, { x1: x - GAP / 2, x2: x - GAP / 2 });
        if (!arrived) return;
        const good = right[k];
        // the start column's numbers start at its edge, the last column's end at its edge
        // (centred they are cut)
        const end = k === last && k > 0;
        for (const e of [c.m, c.rescale, c.l]) {
          set(host(e), { x: k === 0 ? x : end ? x + span(k) : mid });
          host(e).style.textAnchor = k === 0 ? "start" : end ? "end" : "";
        }
        write(c.m, Number.isFinite(here.m) ? fixed(here.m) : "−∞", differs(here.m, good.m) && Number.isFinite(here.m));
        // the factor the old terms were rescaled by; the first tile had nothing to rescale
        const shrank = here.rescale !== null && before !== undefined && before.l > 0;
        show(host(c.rescale), shrank && k === step);
        if (shrank) {
          const missed = bug === "rescale" && /** @type {number} */ (here.rescale) < 1;
          write(
            c.rescale,
            missed ? "× 1" : `× ${here.rescale === 1 ? "1" : fixed(/** @type {number} */ (here.rescale), 3)}`,
            missed,
          );
          c.rescale.classList.toggle("idle", here.rescale === 1);
        }
        write(c.l, fixed(here.l, 3), differs(here.l, good.l));
        // ℓ's bar: what was kept of the old sum (rescaled), then this tile's new terms
        const fresh = here.terms.slice(before ? before.keys : 0).reduce((a, b) => a + b, 0);
        const kept = k === 0 ? here.l : here.l - fresh;
        const bx = mid - 12;
        set(c.kept, { x: bx, y: yl(kept), height: BAND.bottom - yl(kept) });
        set(c.added, { x: bx, y: yl(here.l), height: Math.max(0, yl(kept) - yl(here.l)) });
        c.kept.classList.toggle(
          "wrong",
          (k === 0 && here.l > 0) || (bug === "rescale" && differs(kept, good.l - fresh)),
        );
        const ghost = shrank && bug !== "rescale" && /** @type {number} */ (here.rescale) < 1;
        show(c.ghost, ghost);
        if (ghost) set(c.ghost, { x: bx - 4, y: yl(before.l), height: BAND.bottom - yl(before.l) });
        // ℓ over the taller of its bar and its outline, the factor × over ℓ
        const over = Math.min(yl(here.l), ghost ? yl(before.l) : BAND.bottom) - 6;
        set(host(c.l), { y: over });
        set(host(c.rescale), { y: over, dy: "-1.3em" });
        // m over the scores: a level across this column, a rise from the level before
        const finite = Number.isFinite(here.m);
        set(host(c.m), { y: (finite ? ys(here.m) : zero) - 6 });
        show(c.step, finite);
        if (finite) set(c.step, { x1: x, x2: x + span(k), y1: ys(here.m), y2: ys(here.m) });
        c.step.classList.toggle("wrong", differs(here.m, good.m));
        for (const e of [c.step, c.kept, c.added, c.ghost]) e.classList.toggle("now", k === step);
        const rose = before !== undefined && Number.isFinite(before.m) && finite;
        show(c.rise, rose);
        if (rose) set(c.rise, { x1: x - GAP / 2, x2: x - GAP / 2, y1: ys(before.m), y2: ys(here.m) });
      });
      // the m of the column before each rise runs on to it
      columns.forEach((c, k) => {
        if (k >= step || !states[k + 1] || !Number.isFinite(states[k].m)) return;
        set(c.step, { x2: left(k) + span(k) + GAP / 2 });
      });

      keys.forEach((key, j) => {
        // its tile
        const k = Math.floor(j / tile) + 1;
        const x = left(k) + (j % tile) * slot + (slot - 18) / 2;
        const seen = k <= step;
        set(key.bar, { x, y: Math.min(ys(s[j]), zero), height: Math.max(0.5, Math.abs(ys(s[j]) - zero)) });
        key.bar.classList.toggle("neg", s[j] < 0);
        set(key.name, { x: x + 9 });
        key.name.classList.toggle("pending", !seen);
        show(key.bar, seen);
      });
      // "no reset" starts ℓ's row with a bar of its own: there the bar speaks instead of the name
      show(rows[0], step > 0 && states[0].l === 0);
      show(rows[1], step > 0);
      show(newest, step > 0);
      if (step > 0) set(newest, { x: left(step) - GAP / 2 + 1, width: span(step) + GAP - 2 });

      // the plane
      const here = states[step];
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
      correct.set(bug === "none" ? here.out : null);
      wrong.set(bug !== "none" ? here.out : null);
      tip.set(step === last && bug === "none" ? here.out : null);
      untangle(plane);
      readout.show({ output: here.out ? vector(here.out) : "—" });
    },
  });
}
