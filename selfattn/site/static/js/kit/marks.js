// The marks a chart draws on its scales: a rule named beside it, a line through data named
// past its end, a dot, and a marker (a rule down the chart at the reader's x, with a dot
// where it crosses each line). Every label is placed off its own mark, never on it.

import { offsetOf, through, typeScale } from "./chart.js";
import { svg } from "./dom.js";
import { setSvg } from "./notation.js";

/** @typedef {ReturnType<typeof import("./chart.js").chart>} Frame */
/** @typedef {(v: number) => number} Place data → pixels; pixels themselves through `same` */

/** @type {Place} */
const same = (v) => v;

/**
 * About how wide a label runs, in px, without asking the page for a layout: a CJK character
 * a full em, any other 0.6 em, at the size of a chart's notes.
 * @param {string} text
 */
function textWidth(text, em = 13.5) {
  let width = 0;
  for (const c of text) width += (c.codePointAt(0) ?? 0) >= 0x2e80 ? em : 0.6 * em;
  return width;
}

// how far a label stands off its mark, in px: clear of a 3 px stroke and its text's halo
const OFF = 5;
const BELOW = 15; // from a mark to the baseline of a label hung under it (tick or note size)

/**
 * A text in the chart's labels layer, anchored at (x, y).
 * @param {Frame} frame @param {string} cls @param {string} text @param {number} x @param {number} y
 * @param {"start"|"middle"|"end"} anchor
 */
function label(frame, cls, text, x, y, anchor) {
  const el = svg("text", { class: cls, x, y, "text-anchor": anchor }, frame.layers.labels);
  setSvg(el, text);
  return el;
}

/**
 * The marks of one chart, on its scales `x` and `y` (leave one out to give that coordinate
 * in pixels: a number line drawn at a fixed height).
 * @param {Frame} frame @param {Place} [x] @param {Place} [y]
 */
export function marks(frame, x = same, y = same) {
  const { box, layers } = frame;

  /**
   * A rule across the box at data `y`, or down it at data `x` (from `from` down to `to`, or the axis);
   * `label` names it beside the rule, on its `side`, from `at` (a data value along the rule;
   * the box's far end when not given).
   * @param {{y?: number, x?: number, from?: number, to?: number, cls?: string, layer?: "grid"|"marks", label?: string,
   *   labelCls?: string, side?: "above"|"below"|"left"|"right", at?: number}} o
   */
  function rule({
    y: v,
    x: u,
    from,
    to,
    cls = "reference",
    layer = "grid",
    label: text = "",
    labelCls = "reference-label",
    side,
    at,
  }) {
    const ends = at === undefined;
    if (v !== undefined) {
      const p = y(v);
      const line = svg("line", { class: cls, x1: box.left, x2: box.right, y1: p, y2: p }, layers[layer]);
      if (text)
        label(
          frame,
          labelCls,
          text,
          ends ? box.right - 4 : x(at),
          side === "below" ? p + BELOW : p - OFF,
          ends ? "end" : "start",
        );
      return line;
    }
    const p = x(/** @type {number} */ (u));
    const top = from === undefined ? box.top : y(from);
    const bottom = to === undefined ? box.bottom : y(to);
    const line = svg("line", { class: cls, x1: p, x2: p, y1: top, y2: bottom }, layers[layer]);
    if (text)
      label(
        frame,
        labelCls,
        text,
        side === "right" ? p + OFF : p - OFF,
        ends ? box.bottom - OFF : y(at),
        side === "right" ? "start" : "end",
      );
    return line;
  }

  /**
   * A line through data points [[u, v], …], named past its last point: to its `right` (in
   * the chart's margin), or `above` or `below` it for a line that runs to the box's edge,
   * clear of the line all along the label's width; `clear` px further off (room for a dot on
   * the line's end, or a subscript hanging under the label).
   * @param {number[][]} points
   * @param {{cls?: string, label?: string, labelCls?: string, end?: "right"|"above"|"below", clear?: number}} [o]
   * @returns {{path: SVGPathElement, label: SVGTextElement|null}}
   */
  function line(points, { cls = "line", label: text = "", labelCls = "line-label", end = "right", clear = 0 } = {}) {
    const path = svg("path", { class: cls, d: through(x, y, points) }, layers.marks);
    if (!text || !points.length) return { path, label: null };
    const drawn = points.map(([u, v]) => [x(u), y(v)]);
    const [px, py] = /** @type {number[]} */ (drawn.at(-1));
    if (end === "right") return { path, label: label(frame, labelCls, text, px + OFF + clear, py + 4, "start") };
    // the heights the line takes under the label's width, ending at its last point
    const from = px - 2 - textWidth(text);
    const under = drawn.filter(([u]) => u >= from).map(([, v]) => v);
    const k = drawn.findIndex(([u]) => u >= from);
    if (k > 0) {
      const [[u0, v0], [u1, v1]] = [drawn[k - 1], drawn[k]];
      under.push(v0 + ((from - u0) * (v1 - v0)) / (u1 - u0));
    }
    const ly = end === "above" ? Math.min(...under) - OFF - 2 - clear : Math.max(...under) + BELOW + 2 + clear;
    return { path, label: label(frame, labelCls, text, px - 2, ly, "end") };
  }

  /**
   * A dot at a data point; `set` moves it. Dots the reader moves go in the handles layer,
   * over every line.
   * @param {{cls?: string, r?: number, layer?: "marks"|"handles", at?: number[]}} [o]
   */
  function dot({ cls = "dot", r = 4.5, layer = "marks", at } = {}) {
    const el = svg("circle", { class: cls, r }, layers[layer]);
    const dot = {
      el,
      /** @param {number} u @param {number} v */
      set(u, v) {
        el.setAttribute("cx", String(x(u)));
        el.setAttribute("cy", String(y(v)));
      },
    };
    if (at) dot.set(at[0], at[1]);
    return dot;
  }

  /**
   * The reader's place on the x axis: a rule down the chart at `u` and a dot on each of
   * `lines` (each a value at u, and its dot's class). `set(u)` moves them together.
   * @param {{value: (u: number) => number, cls?: string}[]} lines
   * @param {{cls?: string, dotCls?: string}} [o]
   */
  function marker(lines, { cls = "marker", dotCls = "dot" } = {}) {
    const down = svg("path", { class: cls }, layers.marks);
    const dots = lines.map((l) => ({ ...l, at: dot({ cls: `${dotCls} ${l.cls ?? ""}`.trim(), layer: "handles" }) }));
    return {
      /** @param {number} u */
      set(u) {
        const px = x(u);
        // the rule breaks where it would cross a label, so no name is struck through
        const gaps = labelBoxes()
          .filter((b) => b.left - OFF < px && px < b.right + OFF)
          .map((b) => [b.top - 2, b.bottom + 2])
          .sort((a, b) => a[0] - b[0]);
        let d = "",
          from = box.top;
        for (const [top, bottom] of gaps) {
          if (top > from) d += `M ${px} ${from} V ${top} `;
          from = Math.max(from, bottom);
        }
        if (from < box.bottom) d += `M ${px} ${from} V ${box.bottom}`;
        down.setAttribute("d", d.trim());
        for (const { value, at } of dots) at.set(u, value(u));
      },
    };
  }

  /**
   * The chart's labels as boxes estimated from their text and anchor (no layout read), at
   * the size the stage renders type (its --px on the SVG); a subscript hangs half an em.
   */
  function labelBoxes() {
    const em = 13.5 * typeScale(frame.root);
    return [...layers.labels.querySelectorAll("text")].map((el) => {
      const width = textWidth(el.textContent ?? "", em);
      const anchor = el.getAttribute("text-anchor");
      const lx = Number(el.getAttribute("x")) - (anchor === "end" ? width : anchor === "middle" ? width / 2 : 0);
      const ly = Number(el.getAttribute("y")) + offsetOf(el, "dy", em); // a line of a stack is set off in em
      return {
        left: lx,
        right: lx + width,
        top: ly - 0.85 * em,
        bottom: ly + (el.querySelector(".sub") ? 0.5 : 0.3) * em,
      };
    });
  }

  return { rule, line, dot, marker };
}
