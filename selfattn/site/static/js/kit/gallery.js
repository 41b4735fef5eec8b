// The kit's gallery (/kit/, built by `selfattn build`, not linked from the article): every
// part of the kit, live, in each theme the page has, drawn from the toy head. The place to
// judge the visual language (docs/design.md) before a figure uses it: what looks wrong here
// looks wrong in 29 figures.

import { clampNumber, figure } from "../figure.js";
import { makeBars } from "./bars.js";
import { choices, menu, slider, stepper, toggle } from "./controls.js";
import { fixed } from "./format.js";
import { makeGrid, weightMap } from "./grid.js";
import { handle } from "./handles.js";
import { makeHead } from "./head.js";
import { around, arrow, makePlane, untangle } from "./plane.js";
import { stage } from "./stage.js";

const data = JSON.parse(document.getElementById("selfattn-data")?.textContent ?? "{}");
const head = makeHead(data.head);
const it = head.index("it");

/** A figure-shaped box in `section`, as the page has: a stage and a caption. */
function demo(section, id, caption) {
  const el = document.createElement("figure");
  el.id = id;
  el.innerHTML = `<div class="stage"></div><figcaption><span class="figure-id">${id}</span> ${caption}</figcaption>`;
  section.append(el);
  return el;
}

/** A plane and a chart composed as one picture; the query's tip dragged; tokens linked. */
function planeAndBars(el) {
  const { picture, controls, readouts } = stage(el);
  const { K } = head.run();
  const plane = makePlane({ ...around([...K, [1.5, 1.5]], { pad: 0.4 }), unit: 60, label: "Keys and a query" });
  picture.append(plane.root);
  const keys = head.tokens.map((token) => arrow(plane, { cls: "key", label: `k_${token}` }));
  const query = arrow(plane, { cls: "query", label: "q_it" });
  const tip = handle(plane, {
    label: "The query of it",
    onMove: (q) => fig.set({ q }),
    get: () => fig.state.q,
  });
  const bars = makeBars(picture, {
    labels: head.tokens,
    domain: [-4, 4],
    height: 220,
    name: "score",
    title: "Raw scores q·k in the row of it",
    label: "Raw scores",
  });
  const mask = choices(controls, {
    legend: "Mask",
    name: "mask",
    options: [
      { value: "none", label: "none" },
      { value: "causal", label: "causal" },
    ],
    onInput: (m) => fig.set({ mask: m }),
  });
  const out = readouts({ top: "highest score" }, { key: "top" });
  const fig = figure(el, {
    state: { q: head.run().Q[it], mask: "none" },
    clamp: (s, before) => ({
      q: Array.isArray(s.q) ? plane.clampToPlane(s.q.map(Number)) : before.q,
      mask: s.mask === "causal" ? "causal" : "none",
    }),
    draw({ q, mask: m }) {
      const scores = K.map((k) => k[0] * q[0] + k[1] * q[1]);
      const off = head.tokens.map((_, j) => (m === "causal" && j > it ? "−∞" : null));
      keys.forEach((a, j) => {
        a.set(off[j] ? null : K[j]);
      });
      query.set(q);
      tip.place(q, `(${fixed(q[0])}, ${fixed(q[1])})`);
      const live = scores.map((s, j) => (off[j] ? -Infinity : s));
      const win = live.indexOf(Math.max(...live));
      bars.set(scores, { win, masked: off });
      mask.show(m);
      out.show({ top: head.tokens[win] });
      untangle(plane);
    },
  });
}

/** The one matrix: scores, then weights, side by side; a focused row; numbers in it. */
function matrices(el) {
  const { picture, controls } = stage(el);
  const { S, W } = head.run("causal");
  const raw = head.run().S;
  const scores = makeGrid(picture, {
    rows: head.tokens,
    columns: head.tokens,
    name: "S",
    label: "Scores",
    scale: Math.max(...raw.flat().map(Math.abs)),
    titles: { rows: "queries", columns: "keys" },
    reference: { value: 1, text: "this square: 1.00" },
  });
  const weights = weightMap(picture, head.tokens, "Weights");
  const row = stepper(controls, { label: "Row", items: head.tokens, onPick: (r) => fig.set({ row: r }) });
  const fig = figure(el, {
    state: { row: it },
    clamp: (s) => ({ row: Math.round(clampNumber(s.row, 0, head.tokens.length - 1, it)) }),
    draw({ row: r }) {
      const masked = (i, j) => (j > i ? { masked: /** @type {"−∞"} */ ("−∞") } : null);
      scores.set(raw, { row: r, numbers: (i) => i === r, mark: (i, j) => masked(i, j) });
      weights.set(W, {
        row: r,
        numbers: (i) => i === r,
        format: (v) => fixed(v),
        mark: (i, j) => (j > i ? { masked: /** @type {"0"} */ ("0") } : null),
      });
      row.show(r);
    },
  });
  void S;
}

/** Every control, in one slim row under a zoomed plane. */
function controlsAndZoom(el) {
  const { picture, controls } = stage(el);
  const out = head.run().out[it];
  const plane = makePlane({ ...around([out], { pad: 0.3 }), unit: 80, zoom: 3, label: "The output of it" });
  picture.append(plane.root);
  const output = arrow(plane, { cls: "output", label: "out_it" });
  const scale = slider(controls, {
    label: "length",
    min: 0,
    max: 2,
    step: 0.1,
    name: "length",
    onInput: (k) => fig.set({ k }),
  });
  const pick = menu(controls, {
    label: "Token",
    name: "token",
    options: head.tokens.map((token) => ({ value: token, label: token })),
    onInput: (token) => fig.set({ token }),
  });
  const flip = toggle(controls, { label: "Flip", name: "flip", onChange: (on) => fig.set({ flip: on }) });
  const fig = figure(el, {
    state: { k: 1, token: "it", flip: false },
    clamp: (s) => ({
      k: clampNumber(s.k, 0, 2, 1),
      token: head.tokens.includes(String(s.token)) ? String(s.token) : "it",
      flip: Boolean(s.flip),
    }),
    draw({ k, token, flip: f }) {
      const o = head.run().out[head.index(token)];
      output.set(
        o.map((c) => c * k * (f ? -1 : 1)),
        [0, 0],
        `out_${token}`,
      );
      scale.show(k, `${fixed(k, 1)}×`);
      pick.show(token);
      flip.show(f);
      untangle(plane);
    },
  });
}

for (const section of document.querySelectorAll(".kit-theme")) {
  const theme = section.getAttribute("data-kit-theme");
  planeAndBars(
    demo(section, `plane-and-bars-${theme}`, "A plane and a chart composed: one height, no hole. Point at a token."),
  );
  matrices(
    demo(
      section,
      `matrices-${theme}`,
      "The one matrix: scores (ink, filled +, hollow −), weights (value hue, tinted by size).",
    ),
  );
  controlsAndZoom(demo(section, `controls-${theme}`, "A zoomed plane says so; the controls: slider, menu, switch."));
}
