// The layout every figure shares, one column: the picture across the whole text column,
// its controls right under it, then one short line of at most two read-outs (the one the
// prose names emphasised) and what else the figure adds under them. On a phone the
// controls stick to the bottom of the screen while their figure is on it (kit.css).
//
// Each SVG of the picture is scaled to the column by its viewBox; its text is not: the
// stage keeps `--px` on each SVG, user units per rendered pixel, and kit.css sets every
// size of type in the picture times it, so a label renders at its design size whatever
// the scale (and the plane's label estimates read the same factor).

import { html } from "./dom.js";
import { setHtml } from "./notation.js";

const MOST_READOUTS = 2;

/**
 * User units per rendered pixel of an SVG shown with its viewBox (meet: the smaller scale
 * of width and height), or 0 where it is not laid out.
 * @param {SVGSVGElement} picture
 */
function unitsPerPixel(picture) {
  const box = picture.viewBox?.baseVal;
  const shown = picture.getBoundingClientRect();
  if (!box?.width || !shown.width || !shown.height) return 0;
  return 1 / Math.min(shown.width / box.width, shown.height / box.height);
}

/**
 * Keep `--px` on every SVG in `picture`; when it changes, redraw the figure on `el`, so
 * what a figure places by its label sizes is placed at the new ones.
 * @param {HTMLElement} el @param {HTMLElement} picture
 */
function keepTypeSize(el, picture) {
  const watch = new ResizeObserver(() => {
    let changed = false;
    for (const drawing of picture.querySelectorAll("svg")) {
      const px = unitsPerPixel(drawing);
      const before = Number(drawing.style.getPropertyValue("--px")) || 1;
      if (!px || Math.abs(px - before) < 0.005 * before) continue;
      drawing.style.setProperty("--px", px.toFixed(4));
      changed = true;
    }
    if (changed) /** @type {any} */ (el).figure?.redraw();
  });
  watch.observe(picture);
  // an SVG appended later (a figure's second chart) changes the picture's size, and so is seen
}

/**
 * @param {HTMLElement} el the <figure>
 */
export function stage(el) {
  const root = /** @type {HTMLElement} */ (el.querySelector(".stage"));
  const picture = html("div", { class: "picture" });
  const controls = html("div", { class: "controls" });
  const under = html("div", { class: "under" });
  root.append(picture, controls, under);
  keepTypeSize(el, picture);
  return {
    picture,
    controls,
    under,
    /**
     * The read-outs, one line under the controls: `labels` maps each data-readout name to
     * its label, written in the prose's notation ("q·k_cat"); `key` is the one the prose
     * names, set in bold and the one a screen reader hears change. A number the picture
     * already labels is not a read-out.
     * @param {Record<string, string>} labels @param {{key?: string}} [o]
     * @returns {{show(values: Record<string, string>): void, label(name: string, text: string): void}}
     */
    readouts(labels, { key } = {}) {
      const names = Object.keys(labels);
      if (names.length > MOST_READOUTS)
        throw new Error(`${el.id}: ${names.length} read-outs, at most ${MOST_READOUTS}`);
      const list = html("dl", { class: "readouts" });
      /** @type {Record<string, {name: HTMLElement, value: HTMLOutputElement}>} */
      const items = {};
      for (const name of names) {
        const term = html("dt");
        setHtml(term, labels[name]);
        const value = /** @type {HTMLOutputElement} */ (html("output", { "data-readout": name }));
        if (name === key) value.dataset.key = "";
        list.append(html("div", { class: `readout${name === key ? " key" : ""}` }, term, html("dd", {}, value)));
        items[name] = { name: term, value };
      }
      under.prepend(list);
      return {
        show(values) {
          for (const [name, text] of Object.entries(values)) {
            const item = items[name];
            if (item && item.value.textContent !== text) item.value.textContent = text;
          }
        },
        label(name, text) {
          setHtml(items[name].name, text);
        },
      };
    },
    /** A short line under the controls: how to drive the figure, in words. @param {string} text */
    note(text) {
      const p = html("p", { class: "figure-note" });
      setHtml(p, text);
      under.append(p);
      return p;
    },
  };
}
