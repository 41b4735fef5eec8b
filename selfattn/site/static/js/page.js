// Start the figures: those near the screen at once, the rest one at a time when the
// browser is idle, so loading never blocks and a figure far down the page costs
// nothing until then. Each gets its tools and description, and any state the address
// asks for (#long-key:f=4.4; a label of before the slugs, #F07:f=4.4, still opens it). Where a figure's module comes from is the caller's: its own file
// (main.js as written), or the chunks the build joins the modules into.

import { describe } from "./a11y.js";
import { makeHead } from "./kit/head.js";
import { forgetTextWidths } from "./kit/plane.js";
import { addPrediction } from "./predict.js";
import { slugOf, statesFromHash } from "./share.js";
import { addTools } from "./tools.js";

/** A figure's module from its own file, `data-module` being relative to static/. */
export function fromFile(/** @type {HTMLElement} */ el) {
  return import(new URL(`../${el.dataset.module}`, import.meta.url).href);
}

/**
 * Start every figure of the page.
 * @param {(el: HTMLElement) => Promise<{default: Function}>} load a figure's module
 */
export function startPage(load) {
  const data = JSON.parse(document.getElementById("selfattn-data")?.textContent ?? "{}");
  const head = makeHead(data.head);
  const wanted = statesFromHash(location.hash);
  const started = new Map();

  /** Import and mount one figure, once. @param {HTMLElement} el */
  function start(el) {
    if (!started.has(el)) {
      started.set(
        el,
        load(el)
          .then((module) => {
            const begun = performance.now();
            module.default(el, head, data.article, data.training, data.learn, data.heads);
            addTools(el);
            describe(el);
            // in the browser's performance timeline, for the load bench to name slow starts
            performance.measure(`start ${el.id}`, { start: begun });
            if (data.predictions[el.id] && !wanted[el.id]) addPrediction(el, data.predictions[el.id]);
            if (wanted[el.id]) {
              el.figure.set(wanted[el.id]);
              requestAnimationFrame(() => el.scrollIntoView({ block: "center" }));
            }
          })
          .catch((error) => {
            el.classList.add("broken");
            console.error(`figure ${el.id} failed to start`, error);
          }),
      );
    }
    return started.get(el);
  }

  // Inter arrives after the first figures drew in a system face (font-display: swap): their
  // labels sit where that face's widths put them, so each figure started so far draws again
  document.fonts?.addEventListener("loadingdone", () => {
    forgetTextWidths();
    for (const el of started.keys()) /** @type {any} */ (el).figure?.redraw();
  });

  const figures = /** @type {HTMLElement[]} */ ([...document.querySelectorAll("figure[data-module]")]);
  const near = new IntersectionObserver(
    (entries) => {
      for (const e of entries) if (e.isIntersecting) start(/** @type {HTMLElement} */ (e.target));
    },
    { rootMargin: "100% 0px" },
  );
  for (const el of figures) {
    if (wanted[el.id]) start(el);
    near.observe(el);
  }

  // A link to a figure or a heading (#tiled-pass, #causal, or an old #F24) lands on it once
  // that figure has drawn: the browser jumps while the page is still parsing, before anything
  // above has its height.
  const anchor = location.hash.length > 1 ? document.getElementById(slugOf(location.hash.slice(1))) : null;
  if (anchor) {
    const drawn = anchor.dataset.module ? start(anchor) : Promise.resolve();
    drawn.then(() => requestAnimationFrame(() => holdAtTop(anchor)));
  } else if (figures.length) {
    // read from the top, the first figure is the first one needed: start it now rather than
    // after the observer's first report, which waits for a whole layout of the page
    start(figures[0]);
  }

  // the rest, one figure per idle moment
  const idle = window.requestIdleCallback ?? ((fn) => setTimeout(fn, 30));
  function startNextWhenIdle() {
    const next = figures.find((el) => !started.has(el));
    if (next) start(next).then(() => idle(startNextWhenIdle));
    else near.disconnect();
  }
  addEventListener("load", () => idle(startNextWhenIdle));

  addEventListener("hashchange", () => {
    for (const [id, state] of Object.entries(statesFromHash(location.hash))) {
      const el = document.getElementById(id);
      if (el?.dataset.module) start(el).then(() => el.figure?.set(state));
    }
  });
}

/**
 * Keep a linked heading or figure at the top of the screen while figures above it draw,
 * until the reader scrolls. The browser's scroll anchoring already follows it, but each
 * adjustment snaps the scroll to a whole pixel and the fractions add up (a heading ended
 * 0.58 px above the screen); here every change of the page's height lands it again, rounded.
 * @param {HTMLElement} anchor
 */
function holdAtTop(anchor) {
  const land = () => scrollTo(0, Math.round(anchor.getBoundingClientRect().top + scrollY));
  land();
  const heights = new ResizeObserver(land);
  heights.observe(document.body);
  const release = () => {
    heights.disconnect();
    for (const type of READER_INPUT) removeEventListener(type, release, true);
  };
  for (const type of READER_INPUT) addEventListener(type, release, { capture: true, passive: true });
}

/** What a reader does to move the page: after any of these, the page is theirs. */
const READER_INPUT = ["wheel", "touchstart", "keydown", "pointerdown"];
