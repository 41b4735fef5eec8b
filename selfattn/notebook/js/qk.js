// show()'s widget, for one head: the query of the selected token among the keys (F03), and
// the weighted sum of the values laid tip to tail to the output (F20). Exact when d = 2;
// otherwise the Python side projects onto the two principal directions and the picture
// says so, with the share of variance the projection keeps.

import { html, svg } from "../../site/static/js/kit/dom.js";
import { elide, fixed, percent } from "../../site/static/js/kit/format.js";
import { around, arrow, clearTicks, makePlane, untangle } from "../../site/static/js/kit/plane.js";
import { convexHull, point, polygon } from "../../site/static/js/weighted-sum.js";
import { exportMenu, floats, shell } from "./common.js";

const ARROWS_UP_TO = 16; // more arrows than this is a hedgehog: the rest are dots
const LABELLED = 5; // keys and value terms named in the picture, by weight
// a real head's tips crowd about the output: names this far apart (in em) read as names of
// their own marks, not as one list (the kit's placer keeps only 2 px)
const APART = 0.5;

/** A plane laid out for `points`, about `px` pixels wide, with a grid step that suits it. */
function planeFor(points, label, px = 340) {
  const spread = Math.max(...points.flat().map(Math.abs), 0.5);
  const step = [0.25, 0.5, 1, 2, 5, 10, 20, 50].find((s) => spread / s <= 5) ?? 100;
  const range = around(points, { pad: step * 0.8, step });
  const unit = px / Math.max(range.x[1] - range.x[0], range.y[1] - range.y[0]);
  const plane = makePlane({ ...range, unit, label, grid: step });
  // drawn at its own size, never stretched: a tall, narrow plane would blow its labels up
  plane.root.style.maxWidth = `${(range.x[1] - range.x[0]) * unit}px`;
  return plane;
}

/**
 * After untangle: hide, in the order given (the most important first), every label that
 * still comes nearer than APART to one already kept, and its leader, then the ticks under
 * what is left: names never pile up.
 * @param {ReturnType<typeof makePlane>} plane @param {SVGTextElement[]} labels @param {number[][]} tips
 */
function thin(plane, labels, tips) {
  const kept = [];
  const gap =
    APART * 0.9 * Number.parseFloat(getComputedStyle(plane.root.querySelector("text.label") ?? plane.root).fontSize);
  const near = (b, k, by) =>
    b.x < k.x + k.width + by && k.x < b.x + b.width + by && b.y < k.y + k.height + by && k.y < b.y + b.height + by;
  const leaders = [...plane.layers.leaders.querySelectorAll("line")];
  for (const label of labels) {
    if (label.style.display === "none" || !label.textContent) continue;
    const b = label.getBBox();
    if (!kept.some((k) => near(b, k, gap))) {
      kept.push(b);
      continue;
    }
    label.style.display = "none";
    // its leader starts just off its box
    for (const line of leaders) {
      const at = { x: Number(line.getAttribute("x1")), y: Number(line.getAttribute("y1")), width: 0, height: 0 };
      if (near(at, b, 6)) line.style.display = "none";
    }
  }
  clearTicks(plane, tips);
}

/** @param {{model: any, el: HTMLElement}} o */
export function renderQK({ model, el }) {
  const started = performance.now();
  const tokens = /** @type {string[]} */ (model.get("tokens"));
  const n = tokens.length;
  // cross-attention's keys are another sequence's tokens (an encoder's, under a decoder's queries)
  const crossKeys = /** @type {string[]} */ (model.get("key_tokens") ?? []);
  const keyTokens = crossKeys.length ? crossKeys : tokens;
  const m = keyTokens.length;
  const Q = model.get("q2"),
    K = model.get("k2"),
    V = model.get("v2");
  const W = floats(model.get("weights"));
  const mask = /** @type {string} */ (model.get("mask"));
  const { root, stop } = shell(el, model.get("css"), () => {});
  root.classList.add("qk");

  const head = html(
    "div",
    { class: "nb-head" },
    html("div", {
      class: "nb-title",
      text: model.get("title") || (crossKeys.length ? `one head, ${n} queries × ${m} keys` : `one head, ${n} tokens`),
    }),
  );
  const body = html("div", { class: "stage wide" });
  const picture = html("div", { class: "picture" });
  body.append(picture);
  const strip = html("div", { class: "tokens", role: "group", "aria-label": "query token" });
  const notes = html("div", { class: "notes" });
  root.append(head, body, strip, notes);

  const kept = (share, d, what) =>
    d === 2
      ? `${what}: exact (d = 2)`
      : `${what}: a projection onto their two principal directions, keeping ${percent(share)} of the variance (d = ${d})`;
  notes.append(
    html("p", {
      class: "figure-note",
      "data-readout": "qk-projection",
      text: kept(model.get("qk_kept"), model.get("d"), "queries and keys"),
    }),
    html("p", {
      class: "figure-note",
      "data-readout": "v-projection",
      text: kept(model.get("v_kept"), model.get("dv"), "values"),
    }),
  );

  // left: the query among the keys, each key's dot sized by the weight it gets (area ∝ weight)
  const left = planeFor([...Q, ...K], "The selected token's query among the keys");
  picture.append(left.root);
  const keyDots = K.map(() => svg("circle", { class: "key-dot" }, left.layers.shapes));
  const keyLabels = K.map(() => svg("text", { class: "label key" }, left.layers.labels));
  const query = arrow(left, { cls: "query" });
  const best = arrow(left, { cls: "key" });

  // right: values faint, the terms w·v tip to tail, the output in purple
  const right = planeFor([...V, [0, 0]], "The weighted sum of the values and the output");
  picture.append(right.root);
  if (m <= ARROWS_UP_TO) for (const v of V) arrow(right, { cls: "value faint" }).set(v);
  else
    for (const v of V)
      svg("circle", { class: "value-dot", r: 2.5, cx: right.sx(v[0]), cy: right.sy(v[1]) }, right.layers.under);
  polygon(right, convexHull(V), "hull");
  const path = svg("polyline", { class: "sum-path" }, right.layers.shapes);
  const terms = Array.from({ length: Math.min(m, LABELLED) }, () => arrow(right, { cls: "value term" }));
  const output = arrow(right, { cls: "output", label: "output" });
  const dot = point(right, { cls: "output", label: "" });
  exportMenu(head, () => left.root, "query-and-keys");
  // the placer takes names in the order of the labels layer: the subject (the query, the
  // output) first, so it stands nearest its tip and the terms' names give way around it
  for (const [plane, cls] of /** @type {[typeof left, string][]} */ ([
    [left, "query"],
    [right, "output"],
  ])) {
    const subject = plane.layers.labels.querySelector(`text.${cls}`);
    if (subject) plane.layers.labels.prepend(subject);
  }

  const chips = tokens.map((token, i) => {
    const b = html("button", { type: "button", class: "token", "data-index": i, title: token, text: elide(token, 10) });
    b.addEventListener("click", () => pick(i));
    return b;
  });
  if (n <= 64) strip.append(...chips);
  else {
    const range = html("input", { type: "range", min: 0, max: n - 1, step: 1, "aria-label": "query token" });
    range.addEventListener("input", () => pick(Number(range.value)));
    strip.append(range);
    model.on("change:row", () => {
      range.value = String(model.get("row"));
    });
  }
  const status = html("output", { class: "row-name", "data-readout": "row" });
  strip.append(status);

  function pick(i) {
    model.set("row", i);
    model.save_changes();
  }

  function draw() {
    const i = model.get("row");
    const w = Array.from(W.subarray(i * m, i * m + m));
    const order = w.map((_, j) => j).sort((a, b) => w[b] - w[a]);
    const scaleArea = 14 / Math.sqrt(Math.max(...w, 1e-9)); // the top key's dot has radius 14
    K.forEach((k, j) => {
      const off = mask && mask[i * m + j] === "0";
      keyDots[j].setAttribute("cx", String(left.sx(k[0])));
      keyDots[j].setAttribute("cy", String(left.sy(k[1])));
      keyDots[j].setAttribute("r", String(off ? 3 : Math.max(1.5, Math.sqrt(w[j]) * scaleArea)));
      keyDots[j].classList.toggle("masked", Boolean(off));
      const named = order.indexOf(j) < LABELLED && w[j] > 0;
      keyLabels[j].style.display = named ? "" : "none";
      keyLabels[j].setAttribute("x", String(left.sx(k[0]) + 10));
      keyLabels[j].setAttribute("y", String(left.sy(k[1]) - 8));
      keyLabels[j].setAttribute("text-anchor", "start");
      keyLabels[j].textContent = named ? `${elide(keyTokens[j], 10)} ${fixed(w[j])}` : "";
      if (named && keyLabels[j].getBBox().x + keyLabels[j].getBBox().width > left.root.viewBox.baseVal.width) {
        keyLabels[j].setAttribute("x", String(left.sx(k[0]) - 10)); // past the right edge: read leftward
        keyLabels[j].setAttribute("text-anchor", "end");
      }
    });
    query.set(Q[i], [0, 0], `q ${elide(tokens[i], 10)}`);
    best.set(K[order[0]]);
    untangle(left, { apart: APART });
    const [queryLabel] = left.layers.labels.querySelectorAll("text.query");
    thin(left, [queryLabel, ...order.map((j) => keyLabels[j])], [Q[i], ...K]);

    // largest terms first, so the first arrows are the ones worth naming
    let at = [0, 0];
    const points = [[0, 0]];
    const steps = order.map((j) => {
      const to = [at[0] + w[j] * V[j][0], at[1] + w[j] * V[j][1]];
      const step = /** @type {[number[], number[], number]} */ ([at, to, j]);
      at = to;
      points.push(to);
      return step;
    });
    path.setAttribute("points", points.map(([x, y]) => `${right.sx(x)},${right.sy(y)}`).join(" "));
    terms.forEach((term, k) => {
      const [from, to, j] = steps[k];
      term.set(w[j] > 0 ? to : null, from, `${elide(keyTokens[j], 10)}`);
    });
    output.set(at);
    dot.set(at);
    untangle(right, { apart: APART });
    const [outputLabel] = right.layers.labels.querySelectorAll("text.output");
    const termLabels = [...right.layers.labels.querySelectorAll("text.term")];
    const named = /** @type {SVGTextElement[]} */ ([outputLabel, ...termLabels]);
    thin(right, named, [at, ...steps.map((step) => step[1])]);
    chips.forEach((c, j) => {
      c.classList.toggle("current", j === i);
      // a chip is a query; under self-attention also the key it masks
      c.classList.toggle("masked", Boolean(!crossKeys.length && mask && mask[i * n + j] === "0"));
    });
    status.textContent = `query ${i}: ${elide(tokens[i], 16)} · output ${fixed(at[0])}, ${fixed(at[1])}`;
  }

  model.on("change:row", draw);
  draw();
  root.dataset.drawMs = (performance.now() - started).toFixed(1);
  return () => {
    stop();
    model.off("change:row", draw);
  };
}
