// show_map's widget: an attention map of the reader's own weights in the article's visual
// language (F25): area ∝ weight, the focus wash on the selected row, masked cells drawn as
// masked, and every cell or row that breaks an invariant marked red and named. Up to 24
// tokens it is the article's own grid (kit/grid.js); past that the canvas twin draws it.

import { html, svg } from "../../site/static/js/kit/dom.js";
import { makeGrid, gridLegend } from "../../site/static/js/kit/grid.js";
import { makeCanvasGrid } from "../../site/static/js/kit/canvas-grid.js";
import { cellWeight, elide, fixed } from "../../site/static/js/kit/format.js";
import { floats, shell, colours, exportMenu } from "./common.js";

const SVG_UP_TO = 24; // past this, per-cell elements cost seconds: the canvas takes over
const NUMBERS_UP_TO = 12; // past this, a cell's number no longer fits under its square

/** The weights of one row as a plain array. @param {Float32Array} w @param {number} n @param {number} i */
const rowOf = (w, n, i) => Array.from(w.subarray(i * n, i * n + n));

/** @param {{model: any, el: HTMLElement}} o */
export function renderMap({ model, el }) {
  const started = performance.now();
  const tokens = /** @type {string[]} */ (model.get("tokens"));
  const n = tokens.length;
  const shape = /** @type {number[]} */ (model.get("shape"));
  let weights = floats(model.get("weights"));
  let picture = null; // the kit grid or the canvas grid, rebuilt only when the theme changes
  let hover = /** @type {number[]|null} */ (null);
  const { root, stop } = shell(el, model.get("css"), () => paint());
  root.classList.add("map");

  const head = html("div", { class: "nb-head" });
  const title = html("div", { class: "nb-title" });
  const pickers = html("div", { class: "pickers" });
  head.append(title, pickers);
  const body = html("div", { class: "stage" });
  const holder = html("div", { class: "picture" });
  const side = html("div", { class: "side" });
  body.append(holder, side);
  const readouts = html("dl", { class: "readouts" });
  const checks = html("ul", { class: "checks" });
  const legend = html("div");
  side.append(readouts, checks, legend);
  root.append(head, body);
  exportMenu(head, () => /** @type {Element} */ (picture?.root), "attention-map");

  // head and layer steppers, only for the axes the tensor has
  const axes = shape.length === 4 ? ["layer", "head"] : shape.length === 3 ? ["head"] : [];
  const steppers = axes.map((axis) => {
    const count = shape[axes.length === 2 && axis === "head" ? 1 : 0];
    const name = html("span", { class: "step-name", "data-readout": axis });
    const step = (by) => {
      const to = (model.get(axis) + by + count) % count;
      model.set(axis, to);
      model.save_changes();
    };
    const back = html("button", { type: "button", "aria-label": `previous ${axis}`, text: "◀" });
    const next = html("button", { type: "button", "aria-label": `next ${axis}`, text: "▶" });
    back.addEventListener("click", () => step(-1));
    next.addEventListener("click", () => step(1));
    pickers.append(html("div", { class: "control stepper" }, html("span", { class: "label", text: axis }), html("div", { class: "step-row" }, back, name, next)));
    return { axis, count, name };
  });

  const readout = (name, label) => {
    const value = html("output", { "data-readout": name });
    readouts.append(html("div", { class: `readout${name === "row" ? " key" : ""}` }, html("dt", { text: label }), html("dd", {}, value)));
    return value;
  };
  const out = { row: readout("row", "query row"), top: readout("top", "largest weight"), sum: readout("sum", "row sum"), hover: readout("hover", "under the pointer") };

  const maskedAt = (i, j) => model.get("causal") && j > i;

  function build() {
    holder.replaceChildren();
    const label = `Attention map of ${n} tokens: each row is one query's weights over the keys`;
    if (n <= SVG_UP_TO) {
      const grid = makeGrid(holder, {
        rows: tokens, columns: tokens, scale: model.get("scale"), label, cell: n > NUMBERS_UP_TO ? 30 : 48,
        titles: { rows: "queries", columns: "keys" },
        reference: { value: model.get("scale") / 4, text: `this square = ${fixed(model.get("scale") / 4, 3)}` },
      });
      // a Σ column beside the grid: each row's sum, red where it is not 1
      const { width, height } = grid.root.viewBox.baseVal; // read before the live rect grows
      grid.root.setAttribute("viewBox", `0 0 ${width + 52} ${height}`);
      const labels = [...grid.root.querySelectorAll(".grid-label.row")];
      const sums = labels.map((text) => svg("text", { class: "row-sum", x: width + 6, y: text.getAttribute("y") ?? 0 }, grid.root));
      svg("text", { class: "grid-title start", x: width + 6, y: 12 }, grid.root).textContent = "Σ";
      const index = new Map([...grid.root.querySelectorAll("g.cell")].map((g, k) => [g, [Math.floor(k / n), k % n]]));
      grid.root.addEventListener("click", (event) => {
        const g = /** @type {Element} */ (event.target).closest("g.cell");
        const at = g && index.get(g);
        if (at) pick(at[0]);
      });
      grid.root.addEventListener("pointermove", (event) => {
        const g = /** @type {Element} */ (event.target).closest("g.cell");
        hoverAt((g && index.get(g)) ?? null);
      });
      grid.root.addEventListener("pointerleave", () => hoverAt(null));
      picture = { kind: "svg", root: grid.root, grid, sums };
    } else {
      const grid = makeCanvasGrid(holder, { rows: tokens, columns: tokens, label, side: Math.min(640, Math.max(360, n * 1.2)) });
      grid.root.addEventListener("click", (event) => {
        const at = grid.cellAt(event);
        if (at) pick(at[0]);
      });
      grid.root.addEventListener("pointermove", (event) => hoverAt(grid.cellAt(event)));
      grid.root.addEventListener("pointerleave", () => hoverAt(null));
      picture = { kind: "canvas", root: grid.root, grid };
    }
    picture.root.addEventListener("keydown", (event) => {
      const by = { ArrowUp: -1, ArrowDown: 1, PageUp: -10, PageDown: 10 }[event.key];
      if (!by) return;
      event.preventDefault();
      pick(Math.min(n - 1, Math.max(0, model.get("row") + by)));
    });
    picture.root.setAttribute("tabindex", "0");
    legend.replaceChildren(gridLegend([
      { kind: "pos", text: `area ∝ weight; a full cell = ${fixed(model.get("scale"), 3)}${n > SVG_UP_TO ? " or more" : ""}` },
      ...(model.get("causal") ? [{ kind: "masked", text: "masked by the causal mask" }] : []),
      { kind: "leak", text: "breaks an invariant" },
    ]));
  }

  function pick(i) {
    model.set("row", i);
    model.save_changes();
  }

  let hoverFrame = 0;
  function hoverAt(at) {
    hover = at;
    if (hoverFrame) return;
    hoverFrame = requestAnimationFrame(() => {
      hoverFrame = 0;
      focus();
    });
  }

  /** The wrong cells and rows the Python side found, by invariant. */
  function failures() {
    const cells = new Map(), rows = new Set();
    for (const check of model.get("checks")) {
      for (const [i, j] of check.cells) cells.set(i * n + j, check.invariant);
      for (const i of check.rows) rows.add(i);
    }
    return { cells, rows };
  }

  /** Everything that depends on the weights: the picture and the checks. */
  function paint() {
    if (!picture) build();
    const { cells, rows } = failures();
    if (picture.kind === "svg") {
      const values = Array.from({ length: n }, (_, i) => rowOf(weights, n, i));
      picture.grid.set(values, {
        format: cellWeight,
        numbers: () => n <= NUMBERS_UP_TO,
        mark: (i, j) => {
          const wrong = cells.has(i * n + j);
          if (maskedAt(i, j)) return { masked: "0", leak: wrong };
          return wrong ? { leak: true } : null;
        },
      });
      picture.sums.forEach((text, i) => {
        text.textContent = fixed(rowOf(weights, n, i).reduce((a, b) => a + b, 0), 3);
        text.classList.toggle("wrong", rows.has(i));
      });
    } else {
      picture.grid.draw(weights, {
        scale: model.get("scale"),
        masked: maskedAt,
        wrong: [...cells.keys()].map((k) => [Math.floor(k / n), k % n]),
        wrongRows: [...rows],
        colours: colours(root),
      });
    }
    checks.replaceChildren(...model.get("checks").map((check) => {
      const li = html("li", { class: check.ok ? "ok" : "failed", "data-invariant": check.invariant });
      li.append(html("span", { class: "mark", text: check.ok ? "✓" : "✗" }), html("span", { text: check.message }));
      if (!check.ok && check.rows.length) {
        const go = html("button", { type: "button", class: "go", text: `row ${check.rows[0]}` });
        go.addEventListener("click", () => pick(check.rows[0]));
        li.append(go);
      }
      return li;
    }));
    title.textContent = model.get("title") || `attention map, ${n} tokens`;
    for (const { axis, count, name } of steppers) name.textContent = `${model.get(axis)} / ${count}`;
    focus();
  }

  /** What depends only on the row and the pointer: cheap, so hovering never repaints the map. */
  function focus() {
    const row = model.get("row");
    const w = rowOf(weights, n, row);
    let top = 0;
    w.forEach((x, j) => { if (x > w[top]) top = j; });
    if (picture.kind === "svg") {
      const band = picture.root.querySelector(".wash");
      const labels = picture.root.querySelectorAll(".grid-label.row");
      const y = Number(labels[row]?.getAttribute("y") ?? 0);
      const cell = n > NUMBERS_UP_TO ? 30 : 48;
      band.style.display = "";
      band.setAttribute("y", String(y - 4 - cell / 2));
      labels.forEach((text, i) => text.classList.toggle("current", i === row));
      picture.root.querySelectorAll("g.cell.hover").forEach((g) => g.classList.remove("hover"));
      if (hover) picture.root.querySelectorAll("g.cell")[hover[0] * n + hover[1]]?.classList.add("hover");
    } else {
      picture.grid.focus(row, hover);
    }
    out.row.textContent = `${row} · ${elide(tokens[row], 16)}`;
    out.top.textContent = `${elide(tokens[top], 12)} ${fixed(w[top], 3)}`;
    out.sum.textContent = fixed(w.reduce((a, b) => a + b, 0), 3);
    out.hover.textContent = hover ? `${elide(tokens[hover[0]], 8)} → ${elide(tokens[hover[1]], 8)}: ${fixed(weights[hover[0] * n + hover[1]], 4)}` : "—";
  }

  const onWeights = () => {
    weights = floats(model.get("weights"));
    picture = null; // the reference square and the legend follow the scale
    paint();
  };
  const onRow = () => focus();
  model.on("change:weights", onWeights);
  model.on("change:checks", paint);
  model.on("change:row", onRow);
  model.on("change:title", paint);
  build();
  paint();
  root.dataset.drawMs = (performance.now() - started).toFixed(1);
  return () => {
    stop();
    model.off("change:weights", onWeights);
    model.off("change:checks", paint);
    model.off("change:row", onRow);
    model.off("change:title", paint);
  };
}
