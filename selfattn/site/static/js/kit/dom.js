// Elements made in one call: an SVG element or an HTML element with its attributes, and
// where it goes.

const NS = "http://www.w3.org/2000/svg";

/**
 * Create an SVG element with attributes, optionally appended to a parent.
 * @template {keyof SVGElementTagNameMap} K
 * @param {K} tag @param {Record<string, string|number>} [attrs] @param {Element} [parent]
 * @returns {SVGElementTagNameMap[K]}
 */
export function svg(tag, attrs = {}, parent) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (parent) parent.append(el);
  return el;
}

/** Create an HTML element with attributes and children; the attribute `text` sets its text. */
export function html(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "text") el.textContent = v;
    else el.setAttribute(k, String(v));
  }
  el.append(...children);
  return el;
}

/**
 * Set an attribute only when its value changes. Chromium lays an SVG text out again on any
 * write of its x, y, dx or dy, even of the value it has (about 20 microseconds a text at 1× CPU):
 * a redraw that writes every label where it already stands pays that for all of them
 * (issue 50). @param {Element} el @param {string} name @param {string|number} value
 */
export function put(el, name, value) {
  const text = String(value);
  if (el.getAttribute(name) !== text) el.setAttribute(name, text);
}
