// The grid's compact twin for long sequences: the same encodings as grid.js (area ∝ |value|
// against a reference, filled when positive and hollow when negative, masked cells grey and
// dashed, wrong cells red, the focus wash behind one row), painted on a canvas so that 512
// tokens draw in a few hundred milliseconds instead of seconds. No per-cell text; token
// labels thin out to what fits and elide past eight characters. Hover and the focused row
// move an overlay only, so the map stays responsive however large it is.

import { elide } from "./format.js";

/**
 * @param {HTMLElement} parent
 * @param {{rows: string[], columns: string[], label: string, side?: number}} o `side` is the
 *   map's width in CSS pixels, labels not counted
 */
export function makeCanvasGrid(parent, { rows, columns, label, side = 560 }) {
  const n = rows.length,
    m = columns.length;
  const longest = Math.min(8, Math.max(3, ...rows.map((r) => r.length)));
  const left = 14 + 7 * longest,
    top = 14 + 7 * longest;
  const cell = Math.max(side / Math.max(n, m), 0.5);
  const width = left + m * cell + 8,
    height = top + n * cell + 8;
  const wrap = document.createElement("div");
  wrap.className = "canvas-grid";
  wrap.style.width = `${width}px`;
  wrap.style.maxWidth = "100%";
  wrap.style.aspectRatio = `${width} / ${height}`;
  const canvas = document.createElement("canvas");
  canvas.setAttribute("role", "img");
  canvas.setAttribute("aria-label", label);
  canvas.tabIndex = 0;
  const band = document.createElement("div");
  band.className = "band";
  const ring = document.createElement("div");
  ring.className = "ring";
  wrap.append(canvas, band, ring);
  parent.append(wrap);
  const ratio = Math.min(window.devicePixelRatio || 1, 2);
  canvas.width = Math.round(width * ratio);
  canvas.height = Math.round(height * ratio);
  const place = (el, x, y, w, h) => {
    el.style.left = `${(100 * x) / width}%`;
    el.style.top = `${(100 * y) / height}%`;
    el.style.width = `${(100 * w) / width}%`;
    el.style.height = `${(100 * h) / height}%`;
  };

  /** The cell under a pointer, or null off the map. @param {PointerEvent|MouseEvent} event */
  function cellAt(event) {
    const box = canvas.getBoundingClientRect();
    const x = ((event.clientX - box.left) / box.width) * width,
      y = ((event.clientY - box.top) / box.height) * height;
    const i = Math.floor((y - top) / cell),
      j = Math.floor((x - left) / cell);
    return i >= 0 && i < n && j >= 0 && j < m ? [i, j] : null;
  }

  /**
   * The row or column whose label is under a pointer (labels thin out and elide, so the
   * caller can show the whole token), or null off the labels.
   * @param {PointerEvent|MouseEvent} event @returns {{axis: "row"|"column", index: number}|null}
   */
  function labelAt(event) {
    const box = canvas.getBoundingClientRect();
    const x = ((event.clientX - box.left) / box.width) * width,
      y = ((event.clientY - box.top) / box.height) * height;
    const i = Math.floor((y - top) / cell),
      j = Math.floor((x - left) / cell);
    if (x < left && i >= 0 && i < n) return { axis: "row", index: i };
    if (y < top && j >= 0 && j < m) return { axis: "column", index: j };
    return null;
  }

  return {
    root: canvas,
    wrap,
    cellAt,
    labelAt,
    /**
     * Paint the values: `values[i * m + j]`. `maskedFrom(i)` is the first column of row i the
     * mask removed (the mask keeps a row's start: a causal one, or none); `wrong` lists cells
     * that break an invariant; `wrongRows` rows that do.
     * @param {ArrayLike<number>} values
     * @param {{scale: number, maskedFrom?: (i: number) => number, wrong?: number[][], wrongRows?: number[],
     *   colours: Record<string, string>}} o
     */
    draw(values, { scale, maskedFrom = () => m, wrong = [], wrongRows = [], colours }) {
      const ctx = /** @type {CanvasRenderingContext2D} */ (canvas.getContext("2d"));
      ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
      ctx.clearRect(0, 0, width, height);
      // the canvas is clear, the page's paper shows through: the focus band sits under it,
      // behind the cells (the export paints the paper in)
      // what the mask removed: a grey wash under the cells, bounded by a dashed staircase
      // one rectangle a row, not a test a cell: a first drawing spends its milliseconds on
      // calls into the page's code, not on pixels
      const maskedPath = new Path2D();
      for (let i = 0; i < n; i += 1) {
        const start = Math.max(0, Math.min(m, maskedFrom(i)));
        if (start < m) maskedPath.rect(left + start * cell, top + i * cell, (m - start) * cell, cell);
      }
      ctx.fillStyle = colours.maskedWash;
      ctx.fill(maskedPath);
      // one path for every filled square and one for every hollow one: a single fill each
      const filled = new Path2D(),
        hollow = new Path2D();
      const inner = cell > 6 ? cell - 2 : cell;
      for (let i = 0; i < n; i += 1) {
        const y = top + (i + 0.5) * cell;
        for (let j = 0; j < m; j += 1) {
          const v = values[i * m + j];
          if (!v || !Number.isFinite(v)) continue;
          const s = Math.sqrt(Math.min(Math.abs(v), scale) / scale) * inner;
          const x = left + (j + 0.5) * cell;
          (v > 0 ? filled : hollow).rect(x - s / 2, y - s / 2, s, s);
        }
      }
      ctx.globalAlpha = 0.78;
      ctx.fillStyle = colours.ink;
      ctx.fill(filled);
      ctx.globalAlpha = 1;
      ctx.strokeStyle = colours.ink;
      ctx.lineWidth = Math.max(0.5, Math.min(1.6, cell / 8));
      ctx.stroke(hollow);
      // a broken invariant is never smaller than a few pixels, so it can be found
      ctx.fillStyle = colours.wrong;
      ctx.strokeStyle = colours.wrong;
      const mark = Math.max(cell, 3);
      for (const [i, j] of wrong) {
        ctx.fillRect(left + (j + 0.5) * cell - mark / 2, top + (i + 0.5) * cell - mark / 2, mark, mark);
      }
      for (const i of wrongRows) ctx.fillRect(left + m * cell + 2, top + i * cell, 4, Math.max(cell, 2));
      ctx.setLineDash([4, 3]);
      ctx.strokeStyle = colours.masked;
      ctx.lineWidth = 1;
      ctx.strokeRect(left - 0.5, top - 0.5, m * cell + 1, n * cell + 1);
      ctx.setLineDash([]);
      // labels: as many as fit at 11 px apart, each elided
      ctx.font = `11px ${colours.font}`;
      ctx.fillStyle = colours.ink;
      const every = Math.max(1, Math.ceil(12 / cell));
      ctx.textAlign = "right";
      ctx.textBaseline = "middle";
      for (let i = 0; i < n; i += every) {
        ctx.fillStyle = wrongRows.includes(i) ? colours.wrong : colours.ink;
        ctx.fillText(elide(rows[i]), left - 4, top + (i + 0.5) * cell);
      }
      ctx.fillStyle = colours.ink;
      ctx.save();
      ctx.translate(left, top - 4);
      ctx.rotate(-Math.PI / 2);
      ctx.textAlign = "left";
      for (let j = 0; j < m; j += every) ctx.fillText(elide(columns[j]), 0, (j + 0.5) * cell);
      ctx.restore();
    },
    /** Wash row `row` in focus and ring the hovered cell; -1/null hides them. */
    focus(row, hover) {
      band.style.display = row >= 0 ? "" : "none";
      // across the row's cells only, never over the labels: the row's own to its left, the
      // keys' above the first row
      const tall = Math.max(cell, 4);
      if (row >= 0) place(band, left - 1, Math.max(top - 1, top + (row + 0.5) * cell - tall / 2), m * cell + 2, tall);
      ring.style.display = hover ? "" : "none";
      if (hover) place(ring, left + hover[1] * cell, top + hover[0] * cell, Math.max(cell, 3), Math.max(cell, 3));
    },
  };
}
