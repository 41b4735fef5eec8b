// show_map's widget: an attention map of the reader's own weights in the article's visual
// language (F25): area ∝ weight, the focus wash on the selected row, masked cells drawn as
// masked, and every cell or row that breaks an invariant marked red and named, with the
// heads that break one listed whichever head is shown. Up to 24 tokens it is the article's
// own grid (kit/grid.js); past that the canvas twin draws it, and dragging over it zooms in.

import { makeCanvasGrid } from "../../site/static/js/kit/canvas-grid.js";
import { html, svg } from "../../site/static/js/kit/dom.js";
import { cellWeight, elide, fixed } from "../../site/static/js/kit/format.js";
import { gridLegend, gridWidth, makeGrid } from "../../site/static/js/kit/grid.js";
import { colours, exportMenu, floats, headNames, makeSteppers, shell, tokensOf, weightText } from "./common.js";

const SVG_UP_TO = 24; // past this, per-cell elements cost seconds: the canvas takes over
const NUMBERS_UP_TO = 12; // past this, a cell's number no longer fits under its square
const LABEL_CHARS = 10; // a label longer than this is elided; the tip shows it whole
const CHAR = 7.5; // a label character's width at --type-note, a little generously
// the read-outs stand beside the picture when the widget is this wide, so a square map never
// sits beside an empty column; narrower, they go under it
const SIDE = 300,
  GAP = 16,
  BESIDE_FROM = 900;
const LABEL_ROOM = 78; // the canvas map's row labels and margin, at most
const SHRINK = 0.88; // an SVG map drawn smaller than this shrinks its 12.5 px labels under 11 px
const SUM_COLUMN = 52; // the Σ column beside the SVG grid
// the SVG grid's cells: with a number under each square (up to NUMBERS_UP_TO tokens), or not
const NUMBERED = 48,
  PLAIN = 30;

/**
 * Stand the grid's key labels on end when any is wider than its column, so no two meet
 * however long the tokens are; the titles move up above them. @param {SVGSVGElement} root
 * @param {string[]} labels @param {number} cell
 */
function standLabels(root, labels, cell) {
  const longest = Math.max(...labels.map((t) => t.length)) * CHAR;
  if (longest <= cell - 6) return;
  const { x, y, width, height } = root.viewBox.baseVal;
  const rise = longest - 20; // the column labels' own row already gives ~20 px
  root.setAttribute("viewBox", `${x} ${y - rise} ${width} ${height + rise}`);
  for (const text of root.querySelectorAll(".grid-label:not(.row)")) {
    const at = `${text.getAttribute("x")} ${text.getAttribute("y")}`;
    text.setAttribute("transform", `rotate(-90 ${at})`);
    text.classList.add("standing");
  }
  for (const text of root.querySelectorAll(".grid-title")) text.setAttribute("y", String(12 - rise));
}

/** The weights of one row as a plain array. @param {Float32Array} w @param {number} n @param {number} i */
const rowOf = (w, n, i) => Array.from(w.subarray(i * n, i * n + n));

/** @param {{model: any, el: HTMLElement}} o */
export function renderMap({ model, el }) {
  const started = performance.now();
  const raw = /** @type {string[]} */ (model.get("raw") ?? []);
  // a rectangular map (cross-attention, a sentence pair) has keys of its own: n queries, nk keys
  const { tokens, keys, n, nk, paired, size: counted } = tokensOf(model);
  const keyRaw = /** @type {string[]} */ (paired ? (model.get("key_raw") ?? []) : raw);
  const labels = tokens.map((t) => elide(t, LABEL_CHARS));
  const keyLabels = keys.map((t) => elide(t, LABEL_CHARS));
  /** A token as shown, and as the tokenizer wrote it when that differs. */
  const wholeOf = (shown, written, i) =>
    written[i] && written[i] !== shown[i] ? `${shown[i]} (${JSON.stringify(written[i])})` : shown[i];
  const whole = (i) => wholeOf(tokens, raw, i);
  const wholeKey = (j) => wholeOf(keys, keyRaw, j);
  const shape = /** @type {number[]} */ (model.get("shape"));
  let weights = floats(model.get("weights"));
  let picture = null; // the kit grid or the canvas grid, rebuilt only when the theme changes
  let hover = /** @type {[number, number]|null} */ (null);
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
  const heads = html("div", { class: "heads", "data-readout": "heads" });
  const legend = html("div");
  const stored = html("p", { class: "figure-note", "data-readout": "stored", text: model.get("stored") ?? "" });
  side.append(readouts, checks, heads, legend, stored);
  const tip = html("div", { class: "tip", "data-readout": "tip", role: "status" });
  const zoomOut = html("button", { type: "button", class: "zoom-out", text: "whole map" });
  zoomOut.addEventListener("click", () => zoomTo(null));
  holder.append(tip);
  root.append(head, body);
  const menu = exportMenu(
    head,
    () => /** @type {Element} */ (picture?.root),
    "attention-map",
    Math.max(n, nk) > SVG_UP_TO ? ["png"] : ["svg", "png"],
  );

  const { axes, update: showSteps } = makeSteppers(pickers, model, shape);

  const readout = (name, label) => {
    const value = html("output", { "data-readout": name });
    readouts.append(
      html(
        "div",
        { class: `readout${name === "row" ? " key" : ""}` },
        html("dt", { text: label }),
        html("dd", {}, value),
      ),
    );
    return value;
  };
  const out = {
    row: readout("row", "query row"),
    top: readout("top", "largest weight"),
    sum: readout("sum", "row sum"),
    hover: readout("hover", "under the pointer"),
  };

  const causal = Boolean(model.get("causal"));
  const maskedAt = (i, j) => causal && j > i;
  let view = { r0: 0, r1: n, c0: 0, c1: nk };
  // a block of cells too small for a pixel is drawn by its largest weight (a spike never
  // vanishes) or its mean (a near-uniform map reads as the even grey it is): said, and chosen
  let pool = "largest"; // the part of a canvas map on screen
  let builtFor = 0; // the widget's width the picture was sized for

  /** The width the picture may take: the widget's, less the read-outs when they go beside. */
  function room() {
    const width = Math.max(280, (root.clientWidth || 720) - 24);
    return width >= BESIDE_FROM ? width - SIDE - GAP : width;
  }

  /**
   * The SVG grid's cell for a picture `fit` px wide: NUMBERED or PLAIN, the largest whose
   * grid fits without going under SHRINK; 0 when none does, and the canvas draws the map,
   * whole and at size, rather than a phone scrolling it sideways.
   */
  function svgCell(fit) {
    if (Math.max(n, nk) > SVG_UP_TO) return 0;
    const cells = Math.max(n, nk) > NUMBERS_UP_TO ? [PLAIN] : [NUMBERED, PLAIN];
    return cells.find((c) => SHRINK * (gridWidth(labels, nk, c) + SUM_COLUMN) <= fit) ?? 0;
  }

  function build() {
    holder.replaceChildren(tip);
    const fit = room();
    builtFor = root.clientWidth;
    const size = paired ? `${n} queries and ${nk} keys` : `${n} tokens`;
    const label = `Attention map of ${size}: each row is one query's weights over the keys`;
    const cell = svgCell(fit);
    if (cell) {
      const grid = makeGrid(holder, {
        rows: labels,
        columns: keyLabels,
        scale: model.get("scale"),
        label,
        cell,
        titles: { rows: "queries", columns: "keys" },
        reference: { value: model.get("scale") / 4, text: `this square = ${weightText(model.get("scale") / 4)}` },
      });
      // a Σ column beside the grid: each row's sum, red where it is not 1
      const { width, height } = grid.root.viewBox.baseVal; // read before the live rect grows
      grid.root.setAttribute("viewBox", `0 0 ${width + SUM_COLUMN} ${height}`);
      const rowLabels = [...grid.root.querySelectorAll(".grid-label.row")];
      const sums = rowLabels.map((text) =>
        svg("text", { class: "row-sum", x: width + 6, y: text.getAttribute("y") ?? 0 }, grid.root),
      );
      svg("text", { class: "grid-title start", x: width + 6, y: 12 }, grid.root).textContent = "Σ";
      standLabels(grid.root, keyLabels, cell);
      // drawn at its design size where it fits, a little larger to fill a wide widget, and
      // never so small its labels go under 11 px (svgCell left the canvas any map too wide)
      const natural = grid.root.viewBox.baseVal;
      const scale = Math.min(1.25, fit / natural.width, 560 / natural.height);
      grid.root.style.width = `${Math.max(scale, SHRINK) * natural.width}px`;
      grid.root.style.flex = "0 0 auto";
      grid.root.style.maxWidth = "none";
      grid.root.style.maxHeight = "none";
      holder.classList.add("scrolls");
      // a label's whole token, as the tokenizer wrote it, under the pointer
      const rowLabelled = [...grid.root.querySelectorAll(".grid-label.row")];
      const keyLabelled = [...grid.root.querySelectorAll(".grid-label:not(.row)")];
      const index = new Map([...grid.root.querySelectorAll("g.cell")].map((g, k) => [g, [Math.floor(k / nk), k % nk]]));
      grid.root.addEventListener("click", (event) => {
        const g = /** @type {Element} */ (event.target).closest("g.cell");
        const at = g && index.get(g);
        if (at) pick(at[0]);
      });
      grid.root.addEventListener("pointermove", (event) => {
        const target = /** @type {Element} */ (event.target);
        const g = target.closest("g.cell");
        const i = rowLabelled.indexOf(target),
          j = keyLabelled.indexOf(target);
        hoverAt((g && index.get(g)) ?? null, event, i >= 0 ? whole(i) : j >= 0 ? wholeKey(j) : "");
      });
      grid.root.addEventListener("pointerleave", () => hoverAt(null));
      picture = { kind: "svg", root: grid.root, grid, sums, cell };
    } else {
      const { r0, r1, c0, c1 } = view;
      const zoomed = r1 - r0 < n || c1 - c0 < nk;
      // as wide as the widget lets it be, drawn 1:1 so its 11 px labels stay 11 px
      const side = Math.max(200, Math.min(640, fit - LABEL_ROOM));
      // past one cell a pixel, a square is a faint smudge: a block of cells is drawn as one,
      // with the block's largest weight, so a spike never vanishes
      const block = Math.ceil(Math.max(r1 - r0, c1 - c0) / side);
      const every = (lo, hi, of = tokens) => of.slice(lo, hi).filter((_, k) => k % block === 0);
      const pooled = block > 1 ? `, each square the ${pool} weight of ${block} × ${block} cells` : "";
      const grid = makeCanvasGrid(holder, {
        rows: every(r0, r1),
        columns: every(c0, c1, keys),
        side,
        label: `${label}${zoomed ? `, zoomed to queries ${r0}–${r1 - 1} and keys ${c0}–${c1 - 1}` : ""}${pooled}`,
      });
      const at = (event) => {
        const cell = grid.cellAt(event);
        return cell && [Math.min(r1 - 1, r0 + cell[0] * block), Math.min(c1 - 1, c0 + cell[1] * block)];
      };
      // a click picks a row; a drag draws a region and zooms into it
      const region = html("div", { class: "region" });
      grid.wrap.append(region);
      let from = /** @type {{x: number, y: number, cell: number[]}|null} */ (null);
      const corner = (event) => {
        const box = grid.wrap.getBoundingClientRect();
        return { x: event.clientX - box.left, y: event.clientY - box.top };
      };
      grid.root.addEventListener("pointerdown", (event) => {
        const cell = at(event);
        if (!cell) return;
        grid.root.setPointerCapture(event.pointerId);
        from = { ...corner(event), cell };
      });
      // a label under the pointer: its whole token, and the raw one, as the SVG grid's do
      const labelled = (event) => {
        const found = grid.labelAt(event);
        if (!found) return "";
        return found.axis === "row" ? whole(r0 + found.index * block) : wholeKey(c0 + found.index * block);
      };
      grid.root.addEventListener("pointermove", (event) => {
        const cell = at(event);
        hoverAt(cell, event, cell ? "" : labelled(event));
        if (!from) return;
        const to = corner(event);
        Object.assign(region.style, {
          display: "block",
          left: `${Math.min(from.x, to.x)}px`,
          top: `${Math.min(from.y, to.y)}px`,
          width: `${Math.abs(to.x - from.x)}px`,
          height: `${Math.abs(to.y - from.y)}px`,
        });
      });
      grid.root.addEventListener("pointerup", (event) => {
        const start = from,
          to = corner(event),
          end = at(event);
        from = null;
        region.style.display = "none";
        if (!start) return;
        const dragged = Math.hypot(to.x - start.x, to.y - start.y) > 8;
        if (!dragged) return start.cell && pick(start.cell[0]);
        if (!end) return;
        const [i0, i1] = [start.cell[0], end[0]].sort((a, b) => a - b);
        const [j0, j1] = [start.cell[1], end[1]].sort((a, b) => a - b);
        if (i1 > i0 || j1 > j0) zoomTo({ r0: i0, r1: i1 + 1, c0: j0, c1: j1 + 1 });
      });
      // Ctrl + wheel (a trackpad's pinch) zooms about the cell under the pointer; a plain
      // wheel still scrolls the notebook
      grid.root.addEventListener(
        "wheel",
        (event) => {
          const cell = at(event);
          if (!event.ctrlKey || !cell) return;
          event.preventDefault();
          const grow = event.deltaY > 0 ? 1.5 : 1 / 1.5;
          const span = (lo, hi, c, total) => {
            const size = Math.min(total, Math.max(8, Math.round((hi - lo) * grow)));
            const start = Math.min(total - size, Math.max(0, Math.round(c - ((c - lo) / (hi - lo)) * size)));
            return [start, start + size];
          };
          const [a0, a1] = span(r0, r1, cell[0], n),
            [b0, b1] = span(c0, c1, cell[1], nk);
          zoomTo(a1 - a0 === n && b1 - b0 === nk ? null : { r0: a0, r1: a1, c0: b0, c1: b1 });
        },
        { passive: false },
      );
      grid.root.addEventListener("pointerleave", () => hoverAt(null));
      picture = { kind: "canvas", root: grid.root, grid, block };
    }
    picture.root.addEventListener("keydown", (/** @type {KeyboardEvent} */ event) => {
      if (event.key === "Escape" && zoomOut.isConnected) return zoomTo(null);
      const by = { ArrowUp: -1, ArrowDown: 1, PageUp: -10, PageDown: 10 }[event.key];
      if (!by) return;
      event.preventDefault();
      pick(Math.min(n - 1, Math.max(0, model.get("row") + by)));
    });
    picture.root.setAttribute("tabindex", "0");
    legend.replaceChildren(
      gridLegend([
        {
          kind: "pos",
          text: `area ∝ weight; a full cell = ${weightText(model.get("scale"))}${Math.max(n, nk) > SVG_UP_TO ? " or more" : ""}`,
        },
        ...(model.get("causal") ? [{ kind: /** @type {const} */ ("masked"), text: "masked by the causal mask" }] : []),
        { kind: "leak", text: "breaks an invariant" },
      ]),
    );
    // a short map a phone draws on the canvas is pixels: it exports as PNG only
    const asSvg = menu.querySelector('[data-export="svg"]');
    if (asSvg) asSvg.hidden = picture.kind === "canvas";
    if (picture.kind === "canvas")
      legend.append(
        html("p", {
          class: "figure-note",
          text: "drag over the map, or Ctrl + wheel, to zoom in; Esc or “whole map” to zoom out",
        }),
      );
    if (picture.kind === "canvas" && picture.block > 1) {
      const by = html("select", { "aria-label": "draw each block by" });
      for (const name of ["largest", "mean"]) by.append(html("option", { value: name, text: `its ${name} weight` }));
      by.value = pool;
      by.addEventListener("change", () => {
        pool = by.value;
        picture = null;
        paint();
      });
      const b = picture.block;
      legend.append(
        html(
          "p",
          { class: "figure-note pooled", "data-readout": "pooled" },
          `each square is a block of ${b} × ${b} cells, drawn by `,
          by,
        ),
      );
    }
  }

  /** Show only queries r0..r1 and keys c0..c1 (end excluded), or the whole map. */
  function zoomTo(region) {
    view = region ?? { r0: 0, r1: n, c0: 0, c1: nk };
    if (region) pickers.append(zoomOut);
    else zoomOut.remove();
    picture = null;
    paint();
    // paint drew the picture anew: the keys stay on it
    /** @type {{root: HTMLElement|SVGElement}} */ (/** @type {unknown} */ (picture)).root.focus();
  }

  function pick(i) {
    model.set("row", i);
    model.save_changes();
  }

  const cellText = ([i, j]) =>
    `${labels[i]} → ${keyLabels[j]}: ${maskedAt(i, j) ? "masked" : weightText(weights[i * nk + j])}`;

  let hoverFrame = 0;
  /** The cell under the pointer: its value beside the pointer, its ring on the map. */
  function hoverAt(at, event, label = "") {
    hover = at;
    tip.style.display = (at || label) && event ? "block" : "none";
    if ((at || label) && event) {
      const box = holder.getBoundingClientRect();
      const x = event.clientX - box.left + holder.scrollLeft,
        y = event.clientY - box.top;
      tip.textContent = at ? cellText(at) : label;
      if (at && (raw.length || keyRaw.length))
        tip.append(html("div", { class: "raw", text: `${whole(at[0])} → ${wholeKey(at[1])}` }));
      tip.style.left = `${x}px`;
      tip.style.top = `${y}px`;
      tip.classList.toggle("flip", x - holder.scrollLeft > box.width / 2); // stays inside the picture
    }
    if (hoverFrame) return;
    hoverFrame = requestAnimationFrame(() => {
      hoverFrame = 0;
      focus();
    });
  }

  /** The wrong cells the Python side found, and the rows whose sum is not 1 (only those
   * turn the Σ red: a row that leaks still sums to 1). */
  function failures() {
    const cells = new Map(),
      sumRows = new Set();
    for (const check of model.get("checks")) {
      for (const [i, j] of check.cells) cells.set(i * nk + j, check.invariant);
      if (check.invariant.startsWith("rows sum to")) for (const i of check.rows) sumRows.add(i);
    }
    return { cells, sumRows };
  }

  /** The heads that break an invariant, whichever is shown, each a button that shows it. */
  function listHeads() {
    const broken = model.get("broken") ?? [];
    const total = shape.slice(0, -2).reduce((a, b) => a * b, 1);
    if (!axes.length) return heads.replaceChildren();
    const { name: named } = headNames(model, shape);
    const name = (b) => named(b.layer, b.head);
    const says = broken.length
      ? `${broken.length} of ${total} heads ${broken.length === 1 ? "breaks" : "break"} an invariant:`
      : `all ${total} heads keep every invariant`;
    heads.replaceChildren(html("p", { class: broken.length ? "failed" : "ok", text: says }));
    const shown = broken.slice(0, 8).map((b) => {
      const go = html("button", { type: "button", class: "go", text: `${name(b)}: ${b.invariants.join(", ")}` });
      go.addEventListener("click", () => {
        model.set("layer", b.layer);
        model.set("head", b.head);
        model.save_changes();
      });
      return go;
    });
    heads.append(...shown);
    if (broken.length > shown.length)
      heads.append(html("p", { text: `and ${broken.length - shown.length} more (m.failed lists them all)` }));
  }

  /** Everything that depends on the weights: the picture and the checks. */
  function paint() {
    if (!picture) build();
    const { cells, sumRows } = failures();
    if (picture.kind === "svg") {
      const values = Array.from({ length: n }, (_, i) => rowOf(weights, nk, i));
      picture.grid.set(values, {
        format: cellWeight,
        numbers: () => picture.cell === NUMBERED,
        mark: (i, j) => {
          const wrong = cells.has(i * nk + j);
          if (maskedAt(i, j)) return { masked: "0", leak: wrong };
          return wrong ? { leak: true } : null;
        },
      });
      picture.sums.forEach((text, i) => {
        text.textContent = fixed(
          rowOf(weights, nk, i).reduce((a, b) => a + b, 0),
          3,
        );
        text.classList.toggle("wrong", sumRows.has(i));
      });
    } else {
      const { r0, r1, c0, c1 } = view;
      const { block } = picture;
      const rows = Math.ceil((r1 - r0) / block),
        m = Math.ceil((c1 - c0) / block);
      const shown = new Float32Array(rows * m);
      if (block === 1) {
        for (let i = r0; i < r1; i += 1) shown.set(weights.subarray(i * nk + c0, i * nk + c1), (i - r0) * m);
      } else if (pool === "mean") {
        const count = new Float32Array(rows * m);
        for (let i = r0; i < r1; i += 1) {
          const at = Math.floor((i - r0) / block) * m;
          for (let j = c0; j < c1; j += 1) {
            const k = at + Math.floor((j - c0) / block);
            shown[k] += weights[i * nk + j];
            count[k] += 1;
          }
        }
        for (let k = 0; k < shown.length; k += 1) shown[k] /= count[k] || 1;
      } else {
        for (let i = r0; i < r1; i += 1) {
          const at = Math.floor((i - r0) / block) * m;
          for (let j = c0; j < c1; j += 1) {
            const k = at + Math.floor((j - c0) / block);
            shown[k] = Math.max(shown[k], weights[i * nk + j]);
          }
        }
      }
      const inside = (i, j) => i >= r0 && i < r1 && j >= c0 && j < c1;
      const local = (i, j) => [Math.floor((i - r0) / block), Math.floor((j - c0) / block)];
      picture.grid.draw(shown, {
        scale: model.get("scale"),
        // a block is masked when all of it is: its bottom-left cell is, under a causal mask
        maskedFrom: (i) => (causal ? Math.floor((Math.min(r1 - 1, r0 + (i + 1) * block - 1) - c0) / block) + 1 : m),
        wrong: [...cells.keys()]
          .map((k) => [Math.floor(k / nk), k % nk])
          .filter(([i, j]) => inside(i, j))
          .map(([i, j]) => local(i, j)),
        wrongRows: [...sumRows].filter((i) => i >= r0 && i < r1).map((i) => local(i, c0)[0]),
        colours: colours(root),
      });
    }
    checks.replaceChildren(
      ...model.get("checks").map((check) => {
        const li = html("li", { class: check.ok ? "ok" : "failed", "data-invariant": check.invariant });
        li.append(html("span", { class: "mark", text: check.ok ? "✓" : "✗" }), html("span", { text: check.message }));
        if (!check.ok && check.rows.length) {
          const go = html("button", { type: "button", class: "go", text: `row ${check.rows[0]}` });
          go.addEventListener("click", () => pick(check.rows[0]));
          li.append(go);
        }
        return li;
      }),
    );
    title.textContent = model.get("title") || `attention map, ${counted}`;
    // how the input's axes were read, beside the title: a 4-D array is never read silently
    if (model.get("reading"))
      title.append(html("span", { class: "reading", "data-readout": "reading", text: model.get("reading") }));
    showSteps();
    listHeads();
    focus();
  }

  /** What depends only on the row and the pointer: cheap, so hovering never repaints the map. */
  function focus() {
    const row = model.get("row");
    const w = rowOf(weights, nk, row);
    let top = 0;
    w.forEach((x, j) => {
      if (x > w[top]) top = j;
    });
    if (picture.kind === "svg") {
      const band = picture.root.querySelector(".wash");
      const labels = picture.root.querySelectorAll(".grid-label.row");
      const y = Number(labels[row]?.getAttribute("y") ?? 0);
      const { cell } = picture;
      band.style.display = "";
      band.setAttribute("y", String(y - 4 - cell / 2));
      labels.forEach((text, i) => {
        text.classList.toggle("current", i === row);
      });
      for (const g of picture.root.querySelectorAll("g.cell.hover")) g.classList.remove("hover");
      if (hover) picture.root.querySelectorAll("g.cell")[hover[0] * nk + hover[1]]?.classList.add("hover");
    } else {
      const { r0, r1, c0, c1 } = view;
      const { block } = picture;
      const seen = hover && hover[0] >= r0 && hover[0] < r1 && hover[1] >= c0 && hover[1] < c1;
      const local = (i, lo) => Math.floor((i - lo) / block);
      picture.grid.focus(
        row >= r0 && row < r1 ? local(row, r0) : -1,
        seen ? /** @type {[number, number]} */ ([local(hover[0], r0), local(hover[1], c0)]) : null,
      );
    }
    out.row.textContent = `${row} · ${elide(tokens[row], 16)}`;
    out.top.textContent = `${keyLabels[top]} ${weightText(w[top])}`;
    out.sum.textContent = fixed(
      w.reduce((a, b) => a + b, 0),
      3,
    );
    out.hover.textContent = hover ? cellText(hover) : "—";
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
  model.on("change:broken", paint);
  build();
  paint();
  // a notebook may draw the widget before it is on the page, or resize its column: the
  // picture is sized again when the width changes by more than a little
  const resized = new ResizeObserver(() => {
    if (Math.abs(root.clientWidth - builtFor) <= 16) return;
    picture = null;
    paint();
  });
  resized.observe(root);
  root.dataset.drawMs = (performance.now() - started).toFixed(1);
  return () => {
    stop();
    resized.disconnect();
    model.off("change:weights", onWeights);
    model.off("change:checks", paint);
    model.off("change:row", onRow);
    model.off("change:title", paint);
    model.off("change:broken", paint);
  };
}
