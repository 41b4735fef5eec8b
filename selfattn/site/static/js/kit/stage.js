// The layout every figure shares (docs/design.md): the picture on the page's own paper, no card,
// its parts composed as one drawing (kit/compose.js: one world scale for planes, parts side
// by side sharing a top and a bottom edge from 1100 px of page up, outset past the column,
// stacked below), its tokens linked (kit/link.js), its controls in one slim row right under
// it, then one short line of at most two read-outs (the one the prose names emphasised).
// On a phone the controls stick to the bottom of the screen while their figure is on it.
//
// Each SVG's text keeps its design size whatever the drawing's scale: compose.js keeps
// `--px` (user units per rendered px) on each SVG and kit.css sets every size of type in
// the picture times it.

import { keepComposed } from "./compose.js";
import { html } from "./dom.js";
import { linkTokens } from "./link.js";
import { setHtml } from "./notation.js";

const MOST_READOUTS = 2;

/**
 * @param {HTMLElement} el the <figure>
 */
export function stage(el) {
  const root = /** @type {HTMLElement} */ (el.querySelector(".stage"));
  const picture = html("div", { class: "picture" });
  const controls = html("div", { class: "controls" });
  const under = html("div", { class: "under" });
  root.append(picture, controls, under);
  keepComposed(el, picture);
  linkTokens(picture);
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
