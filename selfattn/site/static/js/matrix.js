// The score matrix as squares: one per (query, key), side ∝ |score|, filled when the
// score is positive and hollow when it is negative, so colour never carries the sign
// alone (dashes are left for the causal mask's discarded scores). Cells move with CSS
// transitions, so a transpose is seen as a flip rather than a swap of numbers.

import { svg } from "./kit/plane.js";
import { fixed } from "./kit/format.js";
import { html, t } from "./figure.js";
import { attention } from "./attention.js";

const CELL = 50;
const LEFT = 66; // room for the row labels and, in the corner, the rows' title
const TOP = 44; // room for the axis title and the column labels
const LARGEST = CELL - 6; // the side of the square with the largest |score|

/**
 * A labelled n×n grid of squares. `scale` is the |score| drawn at full size; `footer`
 * adds a strip under the grid that prints one row's numbers, column by column.
 * @param {{labels: string[], label: string, scale: number, titles: {rows: string, columns: string}, footer?: boolean}} o
 */
export function makeMatrix({ labels, label, scale, titles, footer = false }) {
  const n = labels.length;
  const width = LEFT + n * CELL + 4, height = TOP + n * CELL + (footer ? 34 : 4);
  const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "chart matrix", role: "img", "aria-label": label });
  const band = svg("rect", { class: "row-band", x: 4, y: 0, width: width - 8, height: CELL, rx: 6 }, root);
  const diagonal = svg("line", { class: "diagonal", x1: LEFT, y1: TOP, x2: LEFT + n * CELL, y2: TOP + n * CELL }, root);
  const columnTitle = svg("text", { class: "matrix-title", x: LEFT + (n * CELL) / 2, y: 14 }, root);
  const rowTitle = svg("text", { class: "matrix-title corner", x: 4, y: TOP - 8 }, root);
  const rowLabels = labels.map((name, i) =>
    Object.assign(svg("text", { class: "matrix-label row", x: LEFT - 8, y: TOP + (i + 0.5) * CELL + 4.5 }, root), { textContent: name }),
  );
  labels.forEach((name, j) => {
    svg("text", { class: "matrix-label", x: LEFT + (j + 0.5) * CELL, y: TOP - 8 }, root).textContent = name;
  });
  const cells = labels.map((query, i) =>
    labels.map((key, j) => {
      const g = svg("g", { class: "cell", "data-query": query, "data-key": key }, root);
      svg("rect", { class: "slot", x: -CELL / 2 + 1.5, y: -CELL / 2 + 1.5, width: CELL - 3, height: CELL - 3, rx: 3 }, g);
      const square = svg("rect", { class: "square" }, g);
      // at the foot of the cell, clear of all but the largest squares
      const value = svg("text", { class: "cell-value", y: CELL / 2 - 6 }, g);
      return { g, square, value, i, j };
    }),
  );
  const strip = svg("g", { class: "footer" }, root);
  if (footer) svg("rect", { class: "footer-band", x: 4, y: TOP + n * CELL + 6, width: width - 8, height: 26, rx: 6 }, strip);
  const footLabel = svg("text", { class: "matrix-label row current", x: LEFT - 8, y: TOP + n * CELL + 24 }, strip);
  const footValues = labels.map((_, j) => svg("text", { class: "cell-value", x: LEFT + (j + 0.5) * CELL, y: TOP + n * CELL + 24 }, strip));
  /**
   * Put a cell's centre at (row, column). The style animates the move; the attribute,
   * which the style overrides on the page, keeps an exported copy (styles stripped) right.
   */
  const moveTo = (el, row, column) => {
    const x = LEFT + (column + 0.5) * CELL, y = TOP + (row + 0.5) * CELL;
    el.setAttribute("transform", `translate(${x} ${y})`);
    el.style.transform = `translate(${x}px, ${y}px)`;
  };

  return {
    root,
    /**
     * Paint the scores. `filled(i, j)` says which squares are in; `row` highlights one
     * query's row; `win` and `marked` outline cells; `values(i, j)` prints a cell's number;
     * `transposed` moves cell (i, j) to (j, i); `footer` prints row `row`'s numbers under the grid.
     * @param {number[][]} scores
     * @param {{filled?: (i: number, j: number) => boolean, row?: number, win?: number[]|null,
     *   marked?: number[][], values?: (i: number, j: number) => boolean, transposed?: boolean,
     *   footer?: boolean}} [o]
     */
    set(scores, { filled = () => true, row = -1, win = null, marked = [], values = () => false, transposed = false, footer: foot = false } = {}) {
      for (const line of cells) {
        for (const { g, square, value, i, j } of line) {
          const s = scores[i][j];
          const side = Math.max(1.5, (Math.min(Math.abs(s), scale) / scale) * LARGEST);
          square.setAttribute("x", -side / 2);
          square.setAttribute("y", -side / 2);
          square.setAttribute("width", side);
          square.setAttribute("height", side);
          const isWin = win !== null && win[0] === i && win[1] === j;
          const isMarked = marked.some(([a, b]) => a === i && b === j);
          g.setAttribute("class", `cell ${s >= 0 ? "pos" : "neg"}${filled(i, j) ? "" : " empty"}${isWin ? " win" : ""}${isMarked ? " marked" : ""}`);
          if (transposed) moveTo(g, j, i);
          else moveTo(g, i, j);
          value.textContent = filled(i, j) && values(i, j) ? fixed(s) : "";
        }
      }
      band.style.visibility = row >= 0 ? "visible" : "hidden";
      band.setAttribute("y", TOP + Math.max(0, row) * CELL);
      rowLabels.forEach((text, i) => text.classList.toggle("current", i === row));
      const showFoot = foot && row >= 0;
      strip.style.visibility = showFoot ? "visible" : "hidden";
      footLabel.textContent = showFoot ? labels[row] : "";
      footValues.forEach((text, j) => { text.textContent = showFoot ? fixed(scores[row][j]) : ""; });
      diagonal.style.visibility = marked.length ? "visible" : "hidden";
      columnTitle.textContent = (transposed ? titles.rows : titles.columns) + " →";
      rowTitle.textContent = (transposed ? titles.columns : titles.rows) + " ↓";
    },
  };
}

/**
 * The key to the squares: filled for positive, hollow for negative.
 * @param {{positive: string, negative: string}} words
 */
export function matrixLegend({ positive, negative }) {
  const swatch = (cls) => {
    const icon = svg("svg", { viewBox: "0 0 18 18", width: 18, height: 18, "aria-hidden": "true" });
    svg("rect", { class: `swatch ${cls}`, x: 2, y: 2, width: 14, height: 14 }, icon);
    return icon;
  };
  return html(
    "div",
    { class: "matrix-legend" },
    html("span", {}, swatch("pos"), positive),
    html("span", {}, swatch("neg"), negative),
  );
}

/**
 * The head's scaled scores S = Q Kᵀ / √d as squares, with the legend: what F08–F10 share.
 * @param {{tokens: string[], X: number[][], WQ: number[][], WK: number[][], WV: number[][]}} head
 * @param {string} label
 * @param {{footer?: boolean}} [o] room under the grid to print one row's numbers
 */
export function scoreMatrix(head, label, { footer = false } = {}) {
  const { S } = attention(head.X, head.W_Q, head.W_K, head.W_V);
  const matrix = makeMatrix({
    labels: head.tokens, label, footer,
    scale: Math.max(...S.flat().map(Math.abs)),
    titles: { rows: t({ zh: "查询", en: "queries" }), columns: t({ zh: "键", en: "keys" }) },
  });
  const legend = matrixLegend({
    positive: t({ zh: "正分：实心", en: "positive: filled" }),
    negative: t({ zh: "负分：空心", en: "negative: hollow" }),
  });
  return { S, matrix, legend };
}
