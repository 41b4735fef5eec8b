// Two native controls the scaffold lacks: an on/off switch and a push button. Like the
// slider in figure.js they only report what the reader asked for; draw moves them.

import { html } from "./figure.js";

/**
 * A checkbox with role="switch": space toggles it, a screen reader says on or off, and
 * the whole label (at least 44 px tall) is the hit target. `off`/`on` name the two
 * sides when the switch chooses between two things, as in + (−∞) ↔ × 0.
 * @param {{label: string, name: string, onChange: (on: boolean) => void, off?: string, on?: string}} o
 * @returns {{el: HTMLLabelElement, input: HTMLInputElement, show(on: boolean): void}}
 */
export function toggle({ label, name, onChange, off, on }) {
  const input = html("input", { type: "checkbox", role: "switch", name });
  const parts = off === undefined
    ? [input, html("span", { class: "switch-label", text: label })]
    : [html("span", { class: "switch-side", text: off, "aria-hidden": "true" }), input, html("span", { class: "switch-side", text: on, "aria-hidden": "true" })];
  if (off !== undefined) input.setAttribute("aria-label", label);
  const el = html("label", { class: "control switch" }, ...parts);
  input.addEventListener("change", () => onChange(input.checked));
  return {
    el,
    input,
    show(value) {
      if (input.checked !== value) input.checked = value;
      el.classList.toggle("is-on", value);
    },
  };
}

/**
 * A push button. `enable(false)` marks it aria-disabled rather than disabled, so a
 * keyboard reader keeps focus on it at the end of a sequence.
 * @param {{label: string, name: string, onPress: () => void}} o
 * @returns {{el: HTMLButtonElement, enable(on: boolean): void}}
 */
export function button({ label, name, onPress }) {
  const el = html("button", { type: "button", name, text: label });
  el.addEventListener("click", () => {
    if (el.getAttribute("aria-disabled") !== "true") onPress();
  });
  return {
    el,
    enable(on) {
      el.setAttribute("aria-disabled", String(!on));
    },
  };
}
