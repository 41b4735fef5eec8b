// Native controls the figure.js scaffold lacks: a group of radio buttons.

import { html } from "./figure.js";

/**
 * A fieldset of radio buttons that writes the chosen value through `onInput`;
 * `show(value)` ticks the one that matches state.
 * @param {{legend: string, name: string, options: {value: string, label: string}[], onInput: (v: string) => void}} o
 */
export function radios({ legend, name, options, onInput }) {
  const inputs = options.map(({ value }) => {
    const input = html("input", { type: "radio", name, value });
    input.addEventListener("change", () => input.checked && onInput(value));
    return input;
  });
  const el = html(
    "fieldset",
    { class: "control choices" },
    html("legend", { text: legend }),
    ...options.map(({ label }, i) => html("label", { class: "choice" }, inputs[i], html("span", { text: label }))),
  );
  return {
    el,
    show(value) {
      for (const input of inputs) input.checked = input.value === value;
    },
  };
}
