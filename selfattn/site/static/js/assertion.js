// An assertion shown as code, with its verdict on the figure's current numbers: a mark
// and a word (never colour alone) in a data-readout, plus the measured quantity.

import { html, t } from "./figure.js";

/** The verdict words, in the page's language. */
export const VERDICT = {
  pass: { zh: "✓ 通过", en: "✓ passes" },
  fail: { zh: "✗ 失败", en: "✗ fails" },
};

/**
 * @param {{code: string, name: string, measure?: string}} o `name` names the verdict
 *   read-out; `measure` labels a second read-out `NAME.value` with the number the
 *   assertion looks at.
 * @returns {{el: HTMLElement, show(pass: boolean, value?: string): void}}
 */
export function assertion({ code, name, measure }) {
  const verdict = html("output", { "data-readout": name, class: "verdict" });
  const value = html("output", { "data-readout": `${name}.value` });
  const parts = [html("code", { class: "assert-code", text: code }), verdict];
  if (measure !== undefined) parts.push(html("span", { class: "assert-measure" }, html("span", { class: "name", text: measure }), value));
  const el = html("div", { class: "assertion" }, ...parts);
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
