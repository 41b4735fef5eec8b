// Every control a figure uses, each on native inputs: slider (the kit's thumb), choices (a
// segmented row), menu (a button opening a list of choices, no <select>), toggle, button
// and stepper. Each
// only reports what the reader asked for (through its callback, which writes state);
// draw moves it with `show`, so tests, links and the reader go through one path.

import { t } from "../i18n.js";
import { html } from "./dom.js";
import { plain, setHtml } from "./notation.js";

/**
 * A labelled range input with its value and unit printed beside the label.
 * @param {HTMLElement} parent
 * @param {{label: string, min: number, max: number, step: number, name: string, onInput: (v: number) => void}} o
 */
export function slider(parent, { label, min, max, step, name, onInput }) {
  const input = /** @type {HTMLInputElement} */ (html("input", { type: "range", min, max, step, name }));
  const value = html("span", { class: "value" });
  const title = html("span", { class: "label" });
  setHtml(title, label);
  const el = html("label", { class: "control slider" }, html("span", { class: "heading" }, title, value), input);
  input.addEventListener("input", () => onInput(Number(input.value)));
  parent.append(el);
  return {
    el,
    input,
    /** @param {number} v where the thumb sits @param {string} [text] what it means, with its unit, in notation */
    show(v, text) {
      if (input.value !== String(v)) input.value = String(v);
      if (text !== undefined && input.getAttribute("aria-valuetext") !== plain(text)) {
        setHtml(value, text);
        input.setAttribute("aria-valuetext", plain(text));
      }
    },
  };
}

/**
 * A segmented row of choices (radio buttons, drawn as words with no circles): one of a few
 * named options.
 * @param {HTMLElement} parent
 * @param {{legend: string, name: string, options: {value: string, label: string}[], onInput: (v: string) => void}} o
 */
export function choices(parent, { legend, name, options, onInput }) {
  const inputs = options.map(({ value }) => {
    const input = /** @type {HTMLInputElement} */ (html("input", { type: "radio", name, value }));
    input.addEventListener("change", () => input.checked && onInput(value));
    return input;
  });
  const heading = html("legend");
  setHtml(heading, legend);
  const el = html(
    "fieldset",
    { class: "control choices" },
    heading,
    ...options.map(({ label }, i) => {
      const text = html("span");
      setHtml(text, label);
      return html("label", { class: "chip" }, inputs[i], text);
    }),
  );
  parent.append(el);
  return {
    el,
    /** @param {string} value */
    show(value) {
      for (const input of inputs) input.checked = input.value === value;
    },
  };
}

const FEW = 4; // options a menu shows as a row of choices rather than behind a button

/**
 * A menu: one of several named options in one control, where a row of choices would crowd
 * the figure's controls (up to FEW options, it is that row). Not a native <select> (docs/design.md, 7): a button that names the
 * choice and opens the options as a list of native radio inputs (name=`name`), which stay
 * in the document while closed, so a keyboard, a screen reader or a test can pick one as a
 * choice is picked. Picking closes it; Escape or a click elsewhere closes it too.
 * @param {HTMLElement} parent
 * @param {{label: string, name: string, options: {value: string, label: string}[], onInput: (v: string) => void, fold?: boolean}} o
 */
export function menu(parent, { label, name, options, onInput, fold = false }) {
  // a few options need no menu: they are a segmented row of choices, all in sight, unless
  // the figure folds them to keep its controls one row on a phone
  if (options.length <= FEW && !fold) {
    const row = choices(parent, { legend: label, name, options, onInput });
    row.el.classList.add("menu-options");
    return row;
  }
  const title = html("span", { class: "label" });
  setHtml(title, label);
  const opener = /** @type {HTMLButtonElement} */ (
    html("button", { type: "button", class: "menu-button", "aria-haspopup": "true", "aria-expanded": "false" })
  );
  const list = html("fieldset", { class: "menu-options choices" });
  list.setAttribute("aria-label", plain(label));
  const el = html("div", { class: "control menu" }, title, opener, list);
  const open = (/** @type {boolean} */ on) => {
    el.classList.toggle("open", on);
    opener.setAttribute("aria-expanded", String(on));
  };
  const inputs = options.map(({ value, label: text }) => {
    const input = /** @type {HTMLInputElement} */ (html("input", { type: "radio", name, value }));
    input.addEventListener("change", () => {
      if (!input.checked) return;
      open(false);
      onInput(value);
    });
    const words = html("span");
    setHtml(words, text);
    list.append(html("label", { class: "chip" }, input, words));
    return input;
  });
  opener.addEventListener("click", () => {
    open(!el.classList.contains("open"));
    if (el.classList.contains("open")) (inputs.find((i) => i.checked) ?? inputs[0])?.focus();
  });
  el.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && el.classList.contains("open")) {
      open(false);
      opener.focus();
    }
  });
  document.addEventListener("pointerdown", (e) => {
    if (!el.contains(/** @type {Node} */ (e.target))) open(false);
  });
  parent.append(el);
  return {
    el,
    /** @param {string} value */
    show(value) {
      for (const input of inputs) input.checked = input.value === value;
      const chosen = options.find((o) => o.value === value);
      if (chosen) setHtml(opener, chosen.label);
    },
  };
}

/**
 * An on/off switch (a checkbox with role="switch"). `off`/`on` name the two sides when
 * the switch chooses between two things, as in + (−∞) ↔ × 0.
 * @param {HTMLElement} parent
 * @param {{label: string, name: string, onChange: (on: boolean) => void, off?: string, on?: string}} o
 */
export function toggle(parent, { label, name, onChange, off, on }) {
  const input = /** @type {HTMLInputElement} */ (html("input", { type: "checkbox", role: "switch", name }));
  const side = (text) => html("span", { class: "side-name", text, "aria-hidden": "true" });
  const title = html("span", { class: "label" });
  setHtml(title, label);
  const parts = off === undefined ? [input, title] : [side(off), input, side(/** @type {string} */ (on))];
  if (off !== undefined) input.setAttribute("aria-label", label.replace(/_/g, ""));
  const el = html("label", { class: "control switch" }, ...parts);
  input.addEventListener("change", () => onChange(input.checked));
  parent.append(el);
  return {
    el,
    input,
    /** @param {boolean} value */
    show(value) {
      if (input.checked !== value) input.checked = value;
      el.classList.toggle("is-on", value);
    },
  };
}

/**
 * A push button. `enable(false)` marks it aria-disabled rather than disabled, so a
 * keyboard reader keeps focus on it at the end of a sequence.
 * @param {HTMLElement} parent
 * @param {{label: string, name: string, onPress: () => void}} o
 */
export function button(parent, { label, name, onPress }) {
  const el = /** @type {HTMLButtonElement} */ (
    html("button", { type: "button", name, class: "control button", text: label })
  );
  el.addEventListener("click", () => {
    if (el.getAttribute("aria-disabled") !== "true") onPress();
  });
  parent.append(el);
  return {
    el,
    /** @param {boolean} on */
    enable(on) {
      el.setAttribute("aria-disabled", String(!on));
    },
  };
}

/**
 * A stepper: ◀ item ▶, for walking through tokens, rows or steps. The name between the
 * arrows carries data-readout (NAME), so tests and screen readers read where it stands.
 * `wrap` goes round from the last item to the first; without it the arrows stop at the ends.
 * @param {HTMLElement} parent
 * @param {{label: string, items: string[], onPick: (i: number) => void, name?: string, wrap?: boolean}} o
 */
export function stepper(parent, { label, items, onPick, name = "token", wrap = true }) {
  let current = 0;
  const n = items.length;
  const prev = html("button", {
    type: "button",
    class: "step-prev",
    "aria-label": t({ zh: "上一个", en: "Previous" }),
    text: "◀",
  });
  const next = html("button", {
    type: "button",
    class: "step-next",
    "aria-label": t({ zh: "下一个", en: "Next" }),
    text: "▶",
  });
  const shown = html("output", { class: "step-name", "aria-live": "polite", "data-readout": name });
  const go = (by) => {
    const to = wrap ? (current + by + n) % n : Math.min(n - 1, Math.max(0, current + by));
    if (to === current) return;
    current = to; // two presses before the next frame draws are two steps, not one
    onPick(to);
  };
  prev.addEventListener("click", () => go(-1));
  next.addEventListener("click", () => go(1));
  const title = html("span", { class: "label" });
  setHtml(title, label);
  const el = html(
    "div",
    { class: "control stepper", role: "group", "aria-label": label.replace(/_/g, "") },
    title,
    html("span", { class: "step-row" }, prev, shown, next),
  );
  parent.append(el);
  return {
    el,
    /** @param {number} i */
    show(i) {
      current = i;
      setHtml(shown, items[i]);
      if (!wrap) {
        prev.setAttribute("aria-disabled", String(i === 0));
        next.setAttribute("aria-disabled", String(i === n - 1));
      }
    },
  };
}

/** A token index from anything: a name, a number, or garbage (which gives `fallback`). */
export function tokenIndex(tokens, value, fallback) {
  if (typeof value === "string" && tokens.includes(value)) return tokens.indexOf(value);
  const n = Number(value);
  return Number.isInteger(n) && n >= 0 && n < tokens.length ? n : fallback;
}
