// An assertion shown as code, with its verdict on the figure's current numbers: a mark
// and a word (never colour alone, and red only when it fails) in a data-readout, plus
// the quantity it looks at, labelled in the prose's notation.

import { t } from "./i18n.js";
import { html } from "./kit/dom.js";
import { setHtml } from "./kit/notation.js";

/** The verdict words, in the page's language. */
export const VERDICT = {
  pass: { zh: "✓ 通过", en: "✓ passes" },
  fail: { zh: "✗ 失败", en: "✗ fails" },
};

/**
 * @param {HTMLElement|null} parent where it goes (null: the caller places `el`)
 * @param {{code: string, name: string, measure?: string}} options `name` names the verdict
 *   read-out; `measure` labels a second read-out `NAME.value` with the number the
 *   assertion looks at.
 * @returns {{el: HTMLElement, show(pass: boolean, value?: string): void}}
 */
export function assertion(parent, options) {
  const { code, name, measure } = options ?? /** @type {any} */ (parent);
  if (!options) parent = null;
  const verdict = html("output", { "data-readout": name, class: "verdict" });
  const value = html("output", { "data-readout": `${name}.value` });
  const head = html("div", { class: "assert-head" }, html("code", { class: "assert-code", text: code }), verdict);
  const parts = [head];
  if (measure !== undefined) {
    const term = html("span", { class: "name" });
    setHtml(term, measure);
    parts.push(html("div", { class: "assert-measure" }, term, value));
  }
  const el = html("div", { class: "assertion" }, ...parts);
  parent?.append(el);
  return {
    el,
    show(pass, text = "") {
      const word = t(pass ? VERDICT.pass : VERDICT.fail);
      if (verdict.textContent !== word) verdict.textContent = word;
      el.classList.toggle("fails", !pass);
      if (value.textContent !== text) value.textContent = text;
    },
  };
}
