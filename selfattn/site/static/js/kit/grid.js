// One matrix for every figure that shows one: scores (fill-matrix, walk-rows, transpose,
// remove-future) and weights (attention-map, silent-bugs) alike, with one geometry, so that
// consecutive matrices read as one object changing (docs/design.md, 6). A cell's square has
// area ∝ |value| against a reference square in the legend; scores are ink, positive filled,
// negative hollow (sign is shape, not hue); weights (kind "weights") are in the value hue,
// on a tint that deepens with the weight, so 0.08 and 0.45 differ at a glance. Each cell
// belongs to its row's token and its column's (data-token, kit/link.js); the number under
// the pointer shows, whatever `numbers` prints. A masked cell is
// what the mask leaves, a small dashed box with −∞ or 0, its former value greyed where the
// figure is about what was thrown away; weight that leaks onto a masked key is wrong (red).

import { t } from "../i18n.js";
import { html, put, svg } from "./dom.js";
import { fixed } from "./format.js";
import { setSvg } from "./notation.js";

/**
 * @typedef {{masked?: "−∞"|"0"|null, leak?: boolean, greyed?: boolean, text?: string}} CellMark
 */

/** The room the row labels take at the grid's left. @param {string[]} rows */
const labelRoom = (rows) => 10 + 8 * Math.max(...rows.map((r) => r.length), 3);

/**
 * The width of a grid of `columns` cells of `cell` px beside these row labels, as makeGrid
 * draws it. @param {string[]} rows @param {number} columns @param {number} cell
 */
export const gridWidth = (rows, columns, cell) => labelRoom(rows) + columns * cell + 6;

/**
 * @param {HTMLElement} parent
 * @param {{rows: string[], columns: string[], label: string, scale: number, name?: string, cell?: number,
 *   titles?: {rows: string, columns: string}, reference?: {value: number, text: string}, kind?: "scores"|"weights"}} o
 *   `scale` is the |value| whose square fills a cell; `name` gives each cell's number
 *   data-readout="NAME.row.column"; `reference` draws, under the grid, the square a value
 *   of that size gets, so areas can be read against it.
 */
export function makeGrid(
  parent,
  { rows, columns, label, scale, name = "", cell = 48, titles, reference, kind = "scores" },
) {
  const left = labelRoom(rows),
    top = titles ? 46 : 24;
  const bottom = top + rows.length * cell;
  const width = gridWidth(rows, columns.length, cell),
    height = bottom + (reference ? 34 : 6);
  // a cell big enough for a number keeps a foot for it, and its square and masked box sit
  // above; a smaller cell prints none, so they sit in its middle and the square fills it
  const lift = cell >= 40 ? 6 : 0;
  const largest = cell - (lift ? 20 : 6); // the side of a square worth `scale`
  const sideOf = (/** @type {number} */ v) => Math.sqrt(Math.min(Math.abs(v), scale) / scale) * largest;
  const root = svg("svg", {
    viewBox: `0 0 ${width} ${height}`,
    class: `chart grid ${kind}`,
    role: "img",
    "aria-label": label,
  });
  if (reference) {
    const side = sideOf(reference.value);
    svg("rect", { class: "reference-square", x: left + 4, y: bottom + 17 - side / 2, width: side, height: side }, root);
    setSvg(svg("text", { class: "reference-text", x: left + side + 10, y: bottom + 21 }, root), reference.text);
  }
  // the focused row: the wash under its label only (over a weight's green tint it would turn
  // olive), and an amber outline round its cells
  const band = svg("rect", { class: "wash", x: 2, width: left - 4, height: cell, rx: 6 }, root);
  // the diagonal runs under the cells, each opaque, so it shows in the gutters between them and
  // past the two corners, never over a mark
  const diagonal = svg(
    "line",
    { class: "diagonal", x1: left - 20, y1: top - 20, x2: left + columns.length * cell + 14, y2: bottom + 14 },
    root,
  );
  // the titles' baseline an em down, in their own em: a grid shrunk to fit a phone's screen
  // sets larger type (--px), which a baseline at a fixed 12 units would push off its top
  const columnTitle = titles
    ? svg("text", { class: "grid-title", x: left + (columns.length * cell) / 2, y: "1em" }, root)
    : null;
  const rowTitle = titles ? svg("text", { class: "grid-title start", x: 4, y: "1em" }, root) : null;
  const rowLabels = rows.map((r, i) => {
    const text = svg("text", { class: "grid-label row", x: left - 6, y: top + (i + 0.5) * cell + 4 }, root);
    setSvg(text, r);
    return text;
  });
  const columnLabels = columns.map((c, j) => {
    const text = svg("text", { class: "grid-label", x: left + (j + 0.5) * cell, y: top - 8 }, root);
    setSvg(text, c);
    return text;
  });
  const cells = rows.map((r, i) =>
    columns.map((c, j) => {
      const g = svg("g", { class: "cell", "data-row": r, "data-column": c, "data-token": `${r} ${c}` }, root);
      svg(
        "rect",
        { class: "slot", x: -cell / 2 + 1.5, y: -cell / 2 + 1.5, width: cell - 3, height: cell - 3, rx: 3 },
        g,
      );
      // a weight's tint, on the opaque slot and under its square: deeper for a larger weight
      const tint = svg(
        "rect",
        { class: "tint", x: -cell / 2 + 1.5, y: -cell / 2 + 1.5, width: cell - 3, height: cell - 3, rx: 3 },
        g,
      );
      const square = svg("rect", { class: "square" }, g);
      // wide enough for "−∞" at the tick size, centred on its text
      const box = svg("rect", { class: "masked-box", x: -13, y: -10 - lift, width: 26, height: 15, rx: 2 }, g);
      const fill = svg("text", { class: "masked-fill", y: 1.5 - lift }, g);
      const value = svg(
        "text",
        { class: "cell-value", y: cell / 2 - 6, ...(name ? { "data-readout": `${name}.${r}.${c}` } : {}) },
        g,
      );
      return { g, tint, square, box, fill, value, i, j };
    }),
  );
  const outline = svg(
    "rect",
    { class: "row-outline", x: left, width: columns.length * cell, height: cell, rx: 4 },
    root,
  );
  // the number under the pointer, for any cell whose own number is not printed
  const pointed = svg("text", { class: "pointer-value", visibility: "hidden" }, root);
  /** @type {{values: number[][], format: (v: number) => string, transposed: boolean}} */
  const last = { values: [], format: fixed, transposed: false };
  root.addEventListener("pointerover", (e) => {
    const g = e.target instanceof Element ? e.target.closest(".cell") : null;
    const at = g && cells.flat().find((c) => c.g === g);
    const printed = at?.value.textContent;
    pointed.setAttribute("visibility", at && !printed && last.values.length ? "visible" : "hidden");
    if (!at || printed || !last.values.length) return;
    const [i, j] = last.transposed ? [at.j, at.i] : [at.i, at.j];
    pointed.textContent = last.format(last.values[at.i][at.j]);
    pointed.classList.toggle("greyed", at.g.classList.contains("masked")); // discarded: struck
    pointed.setAttribute("x", String(left + (j + 0.5) * cell));
    pointed.setAttribute("y", String(top + (i + 1) * cell - 6));
  });
  root.addEventListener("pointerleave", () => pointed.setAttribute("visibility", "hidden"));
  parent.append(root);

  /** Put a cell's centre at (row, column). */
  const moveTo = (el, i, j) => {
    put(el, "transform", `translate(${left + (j + 0.5) * cell} ${top + (i + 0.5) * cell})`);
  };

  return {
    root,
    /**
     * Call `pick(i)` when the reader clicks or taps row i (a cell of it or its label): the
     * matrix is its own control, beside the figure's button or stepper for the keyboard.
     * @param {(i: number) => void} pick
     */
    onRow(pick) {
      root.classList.add("pickable");
      root.addEventListener("click", (e) => {
        const hit = e.target instanceof Element ? e.target.closest(".cell, .grid-label.row") : null;
        const i = hit ? (cells.flat().find((c) => c.g === hit)?.i ?? rowLabels.indexOf(/** @type {any} */ (hit))) : -1;
        if (i >= 0) pick(i);
      });
    },
    /**
     * @param {number[][]} values
     * @param {{row?: number, win?: number[]|null, mark?: (i: number, j: number) => CellMark|null,
     *   numbers?: (i: number, j: number) => boolean, format?: (v: number) => string, transposed?: boolean,
     *   shown?: (i: number, j: number) => boolean, diagonal?: boolean}} [o]
     *   `row` washes one row in focus; `win` rings one cell; `mark` says what the mask did to a
     *   cell; `numbers` which cells print their value; `shown` which cells are filled in yet.
     */
    set(
      values,
      {
        row = -1,
        win = null,
        mark = () => null,
        numbers = () => true,
        format = fixed,
        transposed = false,
        shown = () => true,
        diagonal: showDiagonal = false,
      } = {},
    ) {
      Object.assign(last, { values, format, transposed });
      for (const line of cells) {
        for (const { g, tint, square, box, fill, value, i, j } of line) {
          const v = values[i][j],
            m = mark(i, j) ?? {},
            off = (m.masked ?? null) !== null && !m.leak;
          const side = shown(i, j) && !off ? Math.max(1.5, sideOf(v)) : 0;
          // the tint's depth: a sequential scale of the weight, 0 clear and `scale` deepest; by
          // its square root, as the square's side, so 0.08 and 0.45 differ at a glance
          tint.style.display = kind === "weights" && side ? "" : "none";
          if (kind === "weights")
            put(tint, "fill-opacity", (0.05 + 0.6 * Math.sqrt(Math.min(1, Math.abs(v) / scale))).toFixed(3));
          // written only where they change (kit/dom.js put): a redraw of one row leaves the rest be
          put(square, "x", -side / 2);
          put(square, "y", -side / 2 - lift);
          put(square, "width", side);
          put(square, "height", side);
          const isWin = win !== null && win[0] === i && win[1] === j;
          put(
            g,
            "class",
            `cell ${v >= 0 ? "pos" : "neg"}${m.leak ? " leak" : ""}${off ? " masked" : ""}${isWin ? " win" : ""}${shown(i, j) ? "" : " empty"}${showDiagonal && i === j ? " on-diagonal" : ""}${i === row ? " current" : ""}`,
          );
          box.style.display = off ? "" : "none";
          // A masked cell's number is what the mask left (−∞ or 0), written in its small box;
          // where the figure keeps the discarded value, that stays at the foot, greyed.
          const inBox = off && !m.greyed;
          setSvg(fill, off && m.greyed ? /** @type {string} */ (m.masked) : "");
          const text =
            !shown(i, j) || !numbers(i, j) ? "" : (m.text ?? (inBox ? /** @type {string} */ (m.masked) : format(v)));
          setSvg(value, text);
          // a read-out for every number the cell shows, and none for a number it hides
          if (name && text) put(value, "data-readout", `${name}.${rows[i]}.${columns[j]}`);
          else value.removeAttribute("data-readout");
          put(value, "y", inBox ? 1.5 - lift : cell / 2 - 6);
          value.classList.toggle("masked-fill", inBox);
          value.classList.toggle("greyed", Boolean(off && m.greyed));
          if (transposed) moveTo(g, j, i);
          else moveTo(g, i, j);
        }
      }
      for (const r of [band, outline]) {
        r.style.display = row >= 0 ? "" : "none";
        put(r, "y", top + Math.max(0, row) * cell);
      }
      rowLabels.forEach((text, i) => {
        text.classList.toggle("current", i === row);
      });
      diagonal.style.display = showDiagonal ? "" : "none";
      if (columnTitle && rowTitle && titles) {
        setSvg(columnTitle, `${transposed ? titles.rows : titles.columns} →`);
        setSvg(rowTitle, `${transposed ? titles.columns : titles.rows} ↓`);
      }
      columnLabels.forEach((text, j) => {
        setSvg(text, transposed ? rows[j] : columns[j]);
      });
      rowLabels.forEach((text, i) => {
        setSvg(text, transposed ? columns[i] : rows[i]);
        put(text, "data-token", transposed ? columns[i] : rows[i]);
      });
      columnLabels.forEach((text, j) => {
        put(text, "data-token", transposed ? rows[j] : columns[j]);
        // the ringed cell's key is named in amber over its column
        text.classList.toggle("win", win !== null && win[1] === j);
      });
    },
  };
}

/**
 * An attention map: one query per row, one key per column, a weight in each cell
 * (data-readout="W.query.key"), against the square a weight of 0.25 gets.
 * @param {HTMLElement} parent @param {string[]} tokens @param {string} label
 */
export function weightMap(parent, tokens, label) {
  return makeGrid(parent, {
    rows: tokens,
    columns: tokens,
    name: "W",
    scale: 1,
    titles: { rows: t({ zh: "查询", en: "queries" }), columns: t({ zh: "键", en: "keys" }) },
    reference: { value: 0.25, text: t({ zh: "这个方块 = 0.25", en: "this square = 0.25" }) },
    label,
    kind: "weights",
  });
}

/**
 * The key to a grid, in words beside a sample of each: what filled, hollow, masked or
 * leaking mean in this figure (the reference square lives in the grid itself); "weight" is a
 * weight map's square, in the value hue.
 * @param {{kind: "pos"|"neg"|"weight"|"masked"|"leak", text: string}[]} items
 */
export function gridLegend(items) {
  const sample = (kind) => {
    const icon = svg("svg", {
      viewBox: "0 0 18 18",
      width: 18,
      height: 18,
      "aria-hidden": "true",
      class: `swatch ${kind}`,
    });
    svg("rect", { x: 1.5, y: 1.5, width: 15, height: 15, rx: kind === "masked" ? 2 : 0 }, icon);
    return icon;
  };
  return html("ul", { class: "grid-legend" }, ...items.map(({ kind, text }) => html("li", {}, sample(kind), text)));
}

/** The score matrix as F08–F10 draw it: every |score| against the largest one. */
export function scoreGrid(parent, head, label) {
  const { S } = head.run();
  return makeGrid(parent, {
    rows: head.tokens,
    columns: head.tokens,
    name: "S",
    label,
    scale: Math.max(...S.flat().map(Math.abs)),
    titles: { rows: t({ zh: "查询", en: "queries" }), columns: t({ zh: "键", en: "keys" }) },
    reference: { value: 1, text: t({ zh: "这个方块：q·k/√2 = 1.00", en: "this square: q·k/√2 = 1.00" }) },
  });
}

/** The key under F08–F10's grid: what filled and hollow mean. */
export function scoreLegend() {
  return gridLegend([
    { kind: "pos", text: t({ zh: "正分：实心", en: "positive: filled" }) },
    { kind: "neg", text: t({ zh: "负分：空心", en: "negative: hollow" }) },
  ]);
}
