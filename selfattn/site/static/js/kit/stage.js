// The layout every figure shares: the picture, then its controls, then at most four
// read-outs, the one the prose names emphasised. On a wide screen the controls and
// read-outs sit beside the picture; on a phone, right under it.

import { html } from "./dom.js";
import { setHtml } from "./notation.js";

const MOST_READOUTS = 4;

/**
 * @param {HTMLElement} el the <figure>
 * @param {{wide?: boolean}} [o] `wide`: the picture takes the whole width, controls go under it
 */
export function stage(el, { wide = false } = {}) {
  const root = /** @type {HTMLElement} */ (el.querySelector(".stage"));
  root.classList.toggle("wide", wide);
  const picture = html("div", { class: "picture" });
  const controls = html("div", { class: "controls" });
  const side = html("div", { class: "side" }, controls);
  root.append(picture, side);
  return {
    picture,
    controls,
    side,
    /**
     * The read-outs: `labels` maps each data-readout name to its label, written in the
     * prose's notation ("q·k_cat"); `key` is the one the prose names, drawn larger and
     * the one a screen reader hears change.
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
      side.append(list);
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
      side.append(p);
      return p;
    },
  };
}
