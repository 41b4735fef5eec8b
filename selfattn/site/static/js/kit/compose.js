// The picture composed as one drawing (docs/design.md, decisions 2 and 3). Its parts (each SVG,
// or a box of SVGs, that the figure put in the picture) are sized here, never by the
// figure and never by flex guesses:
//
// - one world: a plane draws one unit at WORLD px (times its declared zoom) whatever the
//   figure, at a given page width, and its window is its data's (plus the margin `around`
//   gave it): a plane is as big as what it shows, never a wide grid with the action in a
//   corner. It grows past its data only to share a height with a taller chart beside it;
// - side by side from WIDE px of page up (the figure then outsets to about 1040 px): every
//   part gets the same height, so the parts share a top and a bottom edge, and each part is
//   as wide as its drawing at that height: no hole. If they cannot share a height without
//   shrinking a plane, they stack, as they always do on a narrower page;
// - stacked: a plane its world size, centred in the column; a chart the column's width.
//
// It runs when the picture's width changes or a part comes or goes (a rebuilt plane), then
// sets each SVG's `--px` (user units per px, which kit.css multiplies every type size by)
// from the sizes it set itself, and asks the figure for one redraw: never from a draw, and
// never twice for one change.

export const WIDE = 1100; // px of page from which a composed figure sits side by side, outset
const GAP = 24; // px between parts side by side; stacked, kit.css's row gap
const CHART_MOST = 440; // px: the tallest a chart is drawn, so a figure fits a laptop's screen
const CHART_LEAST = 280; // px: the shortest a chart beside a plane is drawn (a flat plane grows to it)
const WORLD = 52; // px per unit of every plane on a laptop's page (narrower pages: worldUnit)

/**
 * px per unit of every plane on a page this wide: WORLD on a laptop, less where the column is
 * narrower than nine units of it (the widest plane of the article, the input's reach).
 * @param {number} page the page's width in px
 */
export function worldUnit(page) {
  const column = Math.min(720, page - (page <= 520 ? 28 : 40));
  return Math.min(WORLD, Math.floor((column / 9) * 10) / 10);
}

/** The size a part's drawing asks for: its aspect, and a plane's world size. @param {Element} part */
function measureOf(part, unit) {
  if (part instanceof SVGSVGElement) {
    const plane = /** @type {any} */ (part).plane;
    const box = part.viewBox.baseVal;
    if (plane) {
      const { width, height } = plane.natural;
      const k = unit * plane.zoom;
      return { plane, width: width * k, height: height * k, aspect: width / height };
    }
    return { aspect: box.width / box.height };
  }
  // a box of drawings (a column of charts, a row of them): its aspect from theirs
  const inner = [...part.querySelectorAll(":scope > svg")].map((s) => /** @type {SVGSVGElement} */ (s).viewBox.baseVal);
  if (!inner.length) return null;
  const row = getComputedStyle(part).flexDirection === "row";
  const aspect = row
    ? inner.reduce((sum, b) => sum + b.width / b.height, 0)
    : 1 / inner.reduce((sum, b) => sum + b.height / b.width, 0);
  return { aspect, row };
}

/**
 * Lay the parts of `picture` out for its width; returns whether they sit side by side.
 * @param {HTMLElement} picture @param {number} width its content width in px @param {number} page
 */
export function compose(picture, width, page) {
  const unit = worldUnit(page);
  const parts = [...picture.children]
    .map((el) => ({ el: /** @type {HTMLElement} */ (el), m: measureOf(el, unit) }))
    .filter((p) => p.m && /** @type {HTMLElement} */ (p.el).style.display !== "none");
  const most = Math.min(CHART_MOST, Math.round(innerHeight * 0.6));
  /** @type {{el: HTMLElement, w: number, h: number, m: any}[]} */
  let sized = [];
  let side = false;
  if (parts.length > 1 && page >= WIDE) {
    const planes = parts.filter((p) => p.m.plane);
    const others = parts.filter((p) => !p.m.plane);
    const gaps = GAP * (parts.length - 1);
    const rest = others.reduce((s, p) => s + p.m.aspect, 0);
    const planeWidth = planes.reduce((s, p) => s + p.m.width, 0);
    const planeHeight = Math.max(0, ...planes.map((p) => p.m.height));
    // the parts as tall as the planes' data (a chart no shorter than CHART_LEAST), or, with
    // no plane, as tall as the width allows up to `most`; the planes keep their data's width
    const room = rest ? (width - 1 - gaps - planeWidth) / rest : Number.POSITIVE_INFINITY;
    const least = rest ? Math.max(planeHeight, Math.min(most, CHART_LEAST)) : planeHeight;
    const h = Math.min(room, planes.length ? least : most);
    // a chart a little shorter than a plane's data (at most 8 %) still sits beside it,
    // centred on it; any shorter and they stack
    side = h >= planeHeight * 0.92 && h > 0 && planeWidth + gaps < width;
    if (side) {
      const tall = Math.max(h, planeHeight);
      sized = parts.map((p) => (p.m.plane ? { ...p, w: p.m.width, h: tall } : { ...p, w: p.m.aspect * h, h }));
    }
  }
  if (!side) {
    sized = parts.map((p) => {
      // a plane at its world size, its data's window (a plane wider than the column, which
      // no figure should have, shrinks: the scale test names it)
      if (p.m.plane) {
        const k = Math.min(1, width / p.m.width);
        return { ...p, w: p.m.width * k, h: p.m.height * k };
      }
      // a chart across the column (centred in it by its viewBox where it is narrower)
      return { ...p, w: width, h: Math.min(most, width / p.m.aspect) };
    });
  }
  for (const { el, w, h, m } of sized) {
    el.style.width = `${w.toFixed(1)}px`;
    el.style.height = `${h.toFixed(1)}px`;
    if (m.plane) {
      const px = unit * m.plane.zoom;
      if (m.plane.fit(w / px, h / px, px)) picture.dataset.refit = "";
    }
    if (m.row) {
      // a row of drawings in a box: each its share of the box's width, by its aspect
      for (const s of el.querySelectorAll(":scope > svg")) {
        const b = /** @type {SVGSVGElement} */ (s).viewBox.baseVal;
        /** @type {SVGSVGElement} */ (s).style.width = `${((b.width / b.height / m.aspect) * w).toFixed(1)}px`;
      }
    }
  }
  picture.classList.toggle("side", side);
  return side;
}

/**
 * User units per rendered px of every SVG in `picture`, set as its `--px`; whether any changed.
 * Reads each one's box once: called after compose wrote the sizes, once per layout change.
 * @param {HTMLElement} picture
 */
export function keepTypeSize(picture) {
  let changed = false;
  for (const drawing of picture.querySelectorAll("svg")) {
    const box = /** @type {SVGSVGElement} */ (drawing).viewBox?.baseVal;
    const shown = drawing.getBoundingClientRect();
    if (!box?.width || !shown.width || !shown.height) continue;
    const px = 1 / Math.min(shown.width / box.width, shown.height / box.height);
    const style = /** @type {SVGSVGElement} */ (drawing).style;
    const before = Number(style.getPropertyValue("--px")) || 1;
    if (Math.abs(px - before) < 0.005 * before) continue;
    style.setProperty("--px", px.toFixed(4));
    changed = true;
  }
  return changed;
}

/** @type {WeakMap<Element, number>} */
const ids = new WeakMap();
let nextId = 0;
/** What the picture is made of, node by node: a rebuilt plane is a new part, to lay out. */
const partsOf = (/** @type {HTMLElement} */ picture) =>
  [...picture.children]
    .map((c) => {
      if (!ids.has(c)) {
        nextId += 1;
        ids.set(c, nextId);
      }
      return ids.get(c);
    })
    .join();

/**
 * Keep `picture` composed: on a change of its width or of its parts, lay it out once in the
 * next frame, then redraw the figure once if a type scale changed.
 * @param {HTMLElement} el the figure @param {HTMLElement} picture
 */
export function keepComposed(el, picture) {
  // A figure started far down the page sits in a section the browser has not laid out yet
  // (sections.css: content-visibility: auto). Chromium answers the first layout query into it
  // with 0 and the next with the width, and no ResizeObserver reports there: read once, the
  // figure stayed uncomposed until it scrolled in, then changed height in that frame (a
  // press landed on the moved page and was lost). Asked twice, it is composed off screen.
  const widthOf = () => picture.clientWidth || picture.clientWidth;
  let pending = 0;
  let lastWidth = -1;
  let lastHeight = -1;
  let lastParts = "";
  const run = () => {
    pending = 0;
    if (!widthOf()) return;
    const page = document.documentElement.clientWidth;
    lastParts = partsOf(picture);
    // side by side is tried at the outset width; if the parts stack there, the figure
    // keeps to the column (two layouts in this one frame, and no second round from them)
    el.classList.toggle("wide", page >= WIDE);
    let side = compose(picture, picture.clientWidth, page);
    if (!side && el.classList.contains("wide")) {
      el.classList.remove("wide");
      side = compose(picture, picture.clientWidth, page);
    }
    lastWidth = picture.clientWidth;
    lastHeight = picture.clientHeight;
    // a new type scale, or a plane's new window (its fresh ticks cleared under marks by the
    // figure's own draw): one redraw
    const refit = picture.dataset.refit !== undefined;
    delete picture.dataset.refit;
    if (keepTypeSize(picture) || refit) /** @type {any} */ (el).figure?.redraw();
  };
  const schedule = () => {
    if (!pending) pending = requestAnimationFrame(run);
  };
  // a new width lays the parts out again; a new height alone (a stylesheet capping a part's
  // height on a phone) only changes their type scale. What this run set itself comes back
  // as the same sizes, so it settles after one more look
  new ResizeObserver(() => {
    if (picture.clientWidth !== lastWidth || picture.clientHeight !== lastHeight) schedule();
  }).observe(picture);
  new MutationObserver(() => {
    if (partsOf(picture) !== lastParts) schedule();
  }).observe(picture, { childList: true });
  schedule();
}
