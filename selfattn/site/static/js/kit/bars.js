// One row of numbers as bars (scores, exponentials, weights): one baseline and one scale
// per chart, each bar's number at its end, sign as shape (filled above zero, hollow
// below), the current winner in the focus wash. Bars can reorder (each slides to its new
// place), stand beside a ghost of another row, mark a masked key as the mask leaves it
// (a small dashed box) and weight that leaks onto it as wrong (red hatch).

import { axis, chart, linear, typeScale } from "./chart.js";
import { svg } from "./dom.js";
import { fixed } from "./format.js";
import { tokenOf } from "./link.js";
import { setSvg } from "./notation.js";

let hatches = 0;
// px above a bar's end within which a line (a staircase's tread, a reference) would cross
// the number printed there
const TREAD_CLEAR = 22;
const TICK_PX = 11.5; // a bar's number, in rendered px (style.css --type-tick)
// user units under the lowest bar for its number (hung 0.8 em under the bar's end, so it
// takes less than this wherever the stage draws the chart larger than its design size)
const UNDER = 15;
// with a knob riding on a bar's end (`knob`), room for that number lifted clear of the knob
const UNDER_KNOB = 32;

/**
 * @param {HTMLElement} parent
 * @param {{labels: string[], domain: number[], label: string, name?: string, height?: number, width?: number,
 *   format?: (v: number) => string, ticks?: number[], title?: string, edge?: boolean, reference?: boolean,
 *   names?: string[], kind?: "scores"|"weights", outline?: boolean, knob?: boolean, fit?: boolean}} o
 *   `name` gives each bar's number data-readout="NAME.label" (`names` gives each its own);
 *   `outline` draws the ghost as an outline the bar's own width, over the bar (the same
 *   bar before a change: F18's weight before the mask), a masked key's dashed; `edge` draws the top of the
 *   scale as a line (where a staircase of weights must end); `reference` leaves room on the
 *   right for a reference line's label; `knob` says a handle rides on a bar's end through
 *   zero: the names then stand under the whole chart, where the knob never reaches; `fit`
 *   lets the scale's top follow the largest bar or ghost shown (up to the domain's top, whose
 *   edge and ticks show only once reached): a row of small weights fills the chart.
 */
export function makeBars(
  parent,
  {
    labels,
    domain,
    label,
    name = "",
    names = [],
    height = 200,
    width: across = 360,
    format = (v) => fixed(v),
    ticks = [],
    title = "",
    edge = false,
    reference = false,
    kind = "scores",
    outline = false,
    knob = false,
    fit = false,
  },
) {
  const [lo, hi] = domain;
  const frame = chart(parent, {
    width: across,
    height,
    label,
    // "weights" draws the bars in the value hue (how much of a value is taken); scores ink
    cls: kind === "weights" ? "bars weights" : "bars",
    title,
    // names stand at the zero line (in set), so a chart with room under zero needs none under that
    margin: {
      top: title ? 34 : 20,
      bottom: lo < 0 && !knob ? 4 : 26,
      left: ticks.length ? 34 : 8,
      right: reference ? 44 : 8,
    },
  });
  const { box, layers, root } = frame;
  // the scale hugs the domain: zero sits where the data puts it, and under the lowest bar
  // there is only a line for its number (none when nothing can fall below zero)
  const foot = box.bottom - (lo < 0 ? (knob ? UNDER_KNOB : UNDER) : 0);
  let y = linear([lo, hi], [foot, box.top]);
  const n = labels.length,
    slot = (box.right - box.left) / n;
  const x = (/** @type {number} */ k) => box.left + slot * (k + 0.5);
  const before = layers.grid.children.length;
  axis(frame, y, { side: "left", values: ticks });
  // each tick's gridline and number, in the order of `ticks`, to move when the scale fits
  const tickMarks = /** @type {SVGElement[]} */ ([...layers.grid.children].slice(before));
  const top = edge
    ? svg("line", { x1: box.left, x2: box.right, y1: y(hi), y2: y(hi), class: "top-edge" }, layers.grid)
    : null;
  const zero = y(Math.max(lo, 0));
  svg("line", { x1: box.left, x2: box.right, y1: zero, y2: zero, class: "baseline" }, layers.marks);
  hatches += 1;
  const hatch = `hatch-${hatches}`;
  const pattern = svg(
    "pattern",
    { id: hatch, width: 6, height: 6, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" },
    svg("defs", {}, root),
  );
  svg("rect", { width: 6, height: 6, class: "hatch-ground" }, pattern);
  svg("line", { x1: 0, y1: 0, x2: 0, y2: 6, class: "hatch-line" }, pattern);
  const stairs = svg("path", { class: "staircase", visibility: "hidden" }, layers.marks);
  const referenceLine = svg(
    "line",
    { x1: box.left, x2: box.right, class: "reference", visibility: "hidden" },
    layers.marks,
  );
  const referenceText = svg("text", { x: box.right + 4, class: "reference-label" }, layers.labels);
  const width = slot * 0.6;
  const bars = labels.map((token, k) => {
    const readout = names[k] ?? (name ? `${name}.${token}` : "");
    // the slot slides as a whole when the order changes; its label travels with it
    const g = svg("g", { class: "slot" }, layers.marks);
    // a bar of a token is one of its marks (kit/link.js): pointing at it lights the token
    if (tokenOf(token)) g.setAttribute("data-token", tokenOf(token));
    const wash = svg("rect", { x: -slot / 2 + 1, y: box.top - 18, width: slot - 2, rx: 5, class: "wash" }, g);
    const ghost = svg("rect", { class: "ghost", width: width * 0.35 }, g);
    const bar = svg("rect", { x: -width / 2, width, class: "bar" }, g);
    if (outline) {
      // over the bar, so the height before shows as a line across a bar that grew past it
      ghost.setAttribute("class", "ghost outline");
      ghost.setAttribute("width", String(width));
      g.append(ghost);
    }
    const masked = svg("rect", { x: -7, width: 14, height: 14, y: zero - 14, class: "masked-box" }, g);
    const value = svg("text", { class: "bar-value", ...(readout ? { "data-readout": readout } : {}) }, g);
    // on the zero line, across it from the bar (in set), in em as the stage scales type
    // (kit/stage.js's --px): a name is on its bar's foot whatever the chart's size or sign
    const tokenLabel = svg(
      "text",
      knob ? { y: frame.height, dy: "-0.9em", class: "bar-label" } : { y: zero, class: "bar-label" },
      g,
    );
    setSvg(tokenLabel, token);
    const sub = tokenLabel.querySelector(".sub") !== null;
    return { g, wash, ghost, bar, masked, value, tokenLabel, sub };
  });

  return {
    root,
    frame,
    get y() {
      return y;
    },
    x,
    slot,
    /**
     * @param {number[]} values one per label
     * @param {{win?: number, order?: number[], masked?: (string|null)[], leak?: boolean[], ghost?: (number|null)[],
     *   reference?: {value: number, label: string}|null, staircase?: boolean, texts?: string[], lift?: number, dragged?: number}} [o]
     *   `masked[k]` is what the mask left in bar k ("−∞" or "0") or null; `leak[k]` marks weight
     *   on a masked key as wrong; `ghost` draws another row as thin outlines beside the bars;
     *   `texts` overrides the printed numbers; `lift` moves one number clear of a handle.
     */
    set(
      values,
      {
        win = -1,
        order,
        masked = [],
        leak = [],
        ghost = [],
        reference = null,
        staircase = false,
        texts = [],
        lift = -1,
        dragged = -1,
      } = {},
    ) {
      const place = order ?? values.map((_, k) => k);
      if (fit) {
        // a tenth over the largest mark shown, so its number stays inside the chart
        const most = Math.max(...values.filter((_, k) => masked[k] == null), ...ghost.map((g) => g ?? 0));
        const reach = Math.min(hi, Math.ceil(most * 11) / 10);
        y = linear([lo, reach], [foot, box.top]);
        ticks.forEach((v, i) => {
          const marks = tickMarks.slice(i * 2, i * 2 + 2);
          for (const m of marks) {
            m.style.display = v <= reach && v > reach / 8 ? "" : "none";
            m.setAttribute(m.tagName === "line" ? "y1" : "y", String(y(v)));
            if (m.tagName === "line") m.setAttribute("y2", String(y(v)));
          }
        });
        if (top) top.style.display = reach >= hi ? "" : "none";
      }
      // the wash ends under the lowest bar, or just under a name hung from zero (13 px type),
      // or at the chart's foot where the names stand there
      const washBottom = knob ? frame.height - 2 : Math.max(zero + 20 * typeScale(root), lo < 0 ? box.bottom + 2 : 0);
      const washHeight = washBottom - box.top + 18;
      // the staircase's tread over each slot (the running total through it), in px
      let running = 0;
      const treads = place.map((k) => {
        running += values[k];
        return y(running);
      });
      place.forEach((k, at) => {
        const b = bars[k],
          v = values[k],
          off = masked[k] ?? null,
          ghostValue = ghost[k] ?? null;
        const cx = x(at);
        b.g.setAttribute("transform", `translate(${cx} 0)`);
        b.wash.style.display = k === win ? "" : "none";
        b.wash.setAttribute("height", String(washHeight));
        b.tokenLabel.classList.toggle("win", k === win);
        const a = y(Math.max(0, Math.min(hi, v))),
          c = y(Math.min(0, Math.max(lo, v)));
        const shown = off === null || leak[k];
        b.bar.style.display = shown ? "" : "none";
        b.bar.setAttribute("y", String(a));
        b.bar.setAttribute("height", String(Math.max(0.5, c - a)));
        b.bar.setAttribute(
          "class",
          `bar ${v >= 0 ? "pos" : "neg"}${leak[k] ? " leak" : ""}${k === dragged ? " dragged" : ""}`,
        );
        if (leak[k]) b.bar.setAttribute("fill", `url(#${hatch})`);
        else b.bar.removeAttribute("fill");
        // an outline ghost is the masked key's dashed box itself, at the height the mask took
        b.masked.style.display = off !== null && !leak[k] && !(outline && ghostValue !== null) ? "" : "none";
        b.ghost.style.display = ghostValue === null ? "none" : "";
        if (ghostValue !== null) {
          const ga = y(Math.max(0, ghostValue)),
            gc = y(Math.min(0, ghostValue));
          b.ghost.setAttribute("x", String(outline ? -width / 2 : width / 2 + 2));
          b.ghost.classList.toggle("masked", outline && off !== null);
          b.ghost.setAttribute("y", String(ga));
          b.ghost.setAttribute("height", String(Math.max(0.5, gc - ga)));
        }
        const text = off !== null && !leak[k] ? off : (texts[k] ?? format(v));
        // the number stands on its own bar; on a taller ghost beside it only where it is too
        // wide to pass it (0.6 em a figure at the tick size): set over the ghost, a short
        // bar's number floated far from it and read as the ghost's (F28's cat)
        const reach = outline || (text.length * 0.6 * TICK_PX * typeScale(root)) / 2 > width / 2 + 2;
        const barTop = Math.min(a, ghostValue === null || !reach ? a : y(Math.max(0, ghostValue)));
        // a line a little above the bar (the staircase's tread, a reference) would strike its
        // number: the number goes over the line
        const lines = [staircase ? treads[at] : null, reference ? y(reference.value) : null];
        const near = /** @type {number[]} */ (
          lines.filter((line) => line !== null && barTop - line > -0.5 && barTop - line < TREAD_CLEAR)
        );
        const top = Math.min(barTop, ...near);
        // a number over a line keeps a clear space above it, not the dashes under its digits
        const gap = k === lift ? 18 : near.length ? 8 : 5;
        // a lifted number keeps clear of a handle on the bar's end, above it or below it; a
        // negative bar's number hangs from its end by its own height (in em, as the stage
        // scales type), so the line the scale leaves under the lowest bar holds it
        const under = v < 0 && off === null;
        b.value.setAttribute(
          "y",
          String(!under ? (off !== null && !leak[k] && !outline ? zero - 18 : top - gap) : c + gap - 2),
        );
        b.value.setAttribute("dy", under ? "0.8em" : "0");
        // the name hangs under zero from an upright bar, and stands over it on a hollow one
        // (higher by a subscript's drop)
        if (!knob) b.tokenLabel.setAttribute("dy", under ? (b.sub ? "-1.05em" : "-0.7em") : "1.1em");
        setSvg(b.value, text);
        b.value.classList.toggle("masked", off !== null && !leak[k]);
      });
      stairs.setAttribute("visibility", staircase ? "visible" : "hidden");
      if (staircase) {
        // each riser is one weight tall, at the left edge of its slot; the last tread ends on the top edge
        let d = `M ${x(0) - slot / 2} ${y(0)}`;
        place.forEach((_, at) => {
          d += ` V ${treads[at]} H ${x(at) + slot / 2}`;
        });
        stairs.setAttribute("d", d);
      }
      referenceLine.setAttribute("visibility", reference ? "visible" : "hidden");
      referenceText.style.display = reference ? "" : "none";
      if (reference) {
        referenceLine.setAttribute("y1", String(y(reference.value)));
        referenceLine.setAttribute("y2", String(y(reference.value)));
        referenceText.setAttribute("y", String(y(reference.value) + 4));
        setSvg(referenceText, reference.label);
      }
    },
  };
}
