// A square map with one cell per (query, key): the square's size carries the magnitude,
// its fill and outline say positive, negative, masked or leaking, and its text says the
// value, so no cell depends on colour alone.

import { svg } from "./kit/plane.js";
import { fixed } from "./kit/format.js";

/**
 * One cell as draw wants it.
 * @typedef {{size: number, kind: "pos"|"neg"|"masked"|"leak", text: string}} Cell
 */

const CELL = 54, LEFT = 44, TOP = 24, SQUARE = 32; // the square sits above the cell's number

/**
 * A map with the tokens down the side (queries) and across the top (keys). Each cell's
 * text carries data-readout="NAME.query.key", so every number it shows can be read back.
 * @param {{tokens: string[], label: string, name: string}} o
 * @returns {{root: SVGSVGElement, set(cells: Cell[][], opts?: {row?: number}): void}}
 */
export function makeHeatmap({ tokens, label, name }) {
  const n = tokens.length;
  const width = LEFT + n * CELL + 2, height = TOP + n * CELL + 2;
  const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "heatmap", role: "img", "aria-label": label });
  const band = svg("rect", { x: 2, width: width - 2, height: CELL, rx: 6, class: "row-band" }, root);
  svg("text", { x: LEFT - 8, y: TOP - 8, class: "corner" }, root).textContent = "q╲k";
  tokens.forEach((token, j) => {
    svg("text", { x: LEFT + (j + 0.5) * CELL, y: TOP - 8, class: "key-label" }, root).textContent = token;
  });
  const cells = tokens.map((query, i) => {
    svg("text", { x: LEFT - 8, y: TOP + (i + 0.5) * CELL + 4, class: "query-label" }, root).textContent = query;
    return tokens.map((key, j) => {
      const x = LEFT + j * CELL, y = TOP + i * CELL;
      svg("rect", { x: x + 1, y: y + 1, width: CELL - 2, height: CELL - 2, class: "cell" }, root);
      const square = svg("rect", { class: "square" }, root);
      const text = svg("text", { x: x + CELL / 2, y: y + CELL - 6, class: "cell-value", "data-readout": `${name}.${query}.${key}` }, root);
      return { square, text, cx: x + CELL / 2, cy: y + 4 + SQUARE / 2 };
    });
  });
  return {
    root,
    set(values, { row = -1 } = {}) {
      band.setAttribute("y", TOP + row * CELL);
      band.setAttribute("visibility", row >= 0 ? "visible" : "hidden");
      values.forEach((line, i) => line.forEach(({ size, kind, text }, j) => {
        const cell = cells[i][j];
        // a masked cell with nothing left in it still shows where the mask is
        const side = SQUARE * (kind === "masked" && size === 0 ? 1 : Math.min(1, Math.max(0, size)));
        cell.square.setAttribute("x", cell.cx - side / 2);
        cell.square.setAttribute("y", cell.cy - side / 2);
        cell.square.setAttribute("width", side);
        cell.square.setAttribute("height", side);
        cell.square.setAttribute("class", `square ${kind}${kind === "masked" && size === 0 ? " empty" : ""}`);
        if (cell.text.textContent !== text) cell.text.textContent = text;
        cell.text.setAttribute("class", `cell-value ${kind}`);
      }));
    },
  };
}

/**
 * A weight as a cell prints it, in five characters at most: an exact zero says 0,
 * a weight too small for two decimals says <0.01, never a bare 0.00.
 * @param {number} w
 */
export function cellWeight(w) {
  if (w === 0) return "0";
  return w < 0.005 ? "<0.01" : fixed(w);
}

/**
 * Cells for a map of weights: area ∝ weight (so the eye reads shares correctly), a
 * masked key's cell dashed, and weight on a masked key marked as a leak.
 * @param {number[][]} W @param {(i: number, j: number) => boolean} masked
 * @param {(w: number) => string} print
 * @returns {Cell[][]}
 */
export function weightCells(W, masked, print) {
  return W.map((row, i) => row.map((w, j) => ({
    size: Math.sqrt(Math.max(0, w)),
    kind: masked(i, j) ? (w > 0 ? "leak" : "masked") : "pos",
    text: print(w),
  })));
}

/**
 * A key to the squares' styles, in words beside a sample of each.
 * @param {{kind: string, text: string}[]} items
 */
export function legend(items) {
  const el = document.createElement("ul");
  el.className = "map-legend";
  for (const { kind, text } of items) {
    const li = document.createElement("li");
    const swatch = document.createElement("span");
    swatch.className = `swatch ${kind}`;
    swatch.setAttribute("aria-hidden", "true");
    li.append(swatch, text);
    el.append(li);
  }
  return el;
}
