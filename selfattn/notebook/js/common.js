// What both notebook widgets share: a shadow root so the notebook's styles and ours never
// meet, the theme of whatever page holds the widget, tensors sent as base64 float32, the
// one quiet export menu, and a stand-in for anywidget's model in a saved HTML file.

import { html } from "../../site/static/js/kit/dom.js";
import { standaloneSvg, pngFromSvg, download } from "../../site/static/js/export.js";

/** base64 of little-endian float32 → Float32Array. @param {string} text */
export function floats(text) {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i); // Uint8Array.from(…, fn) is 10× slower
  return new Float32Array(bytes.buffer);
}

/** Whether the page around `el` is dark: the first opaque background up the tree decides. */
function darkAround(el) {
  /** @type {Element|null} */
  let node = el;
  while (node) {
    const match = getComputedStyle(node).backgroundColor.match(/rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?/);
    if (match && (match[4] === undefined || Number(match[4]) > 0.5)) {
      const [r, g, b] = match.slice(1, 4).map(Number);
      return 0.2126 * r + 0.7152 * g + 0.0722 * b < 128;
    }
    const parent = node.parentElement;
    node = parent ?? /** @type {ShadowRoot} */ (node.getRootNode()).host ?? null;
  }
  return matchMedia("(prefers-color-scheme: dark)").matches;
}

/**
 * The widget's root inside a shadow root on `el`, styled by `css`, following the page's
 * light or dark theme as it changes (JupyterLab and marimo switch it on <body>).
 * @param {HTMLElement} el @param {string} css @param {() => void} onTheme
 * @returns {{root: HTMLElement, stop: () => void}}
 */
export function shell(el, css, onTheme) {
  const shadow = el.shadowRoot ?? el.attachShadow({ mode: "open" });
  const style = document.createElement("style");
  style.textContent = css;
  const root = html("div", { class: "selfattn-nb" });
  shadow.replaceChildren(style, root);
  const apply = () => {
    const theme = darkAround(el) ? "dark" : "light";
    if (root.dataset.theme !== theme) {
      root.dataset.theme = theme;
      onTheme();
    }
  };
  root.dataset.theme = darkAround(el) ? "dark" : "light";
  const watch = new MutationObserver(() => requestAnimationFrame(apply));
  for (const target of [document.documentElement, document.body]) {
    watch.observe(target, { attributes: true, attributeFilter: ["class", "data-theme", "data-jp-theme-light", "style"] });
  }
  return { root, stop: () => watch.disconnect() };
}

/** The palette as the canvas needs it: computed colours of the widget's CSS variables. */
export function colours(root) {
  const style = getComputedStyle(root);
  const get = (name) => style.getPropertyValue(name).trim();
  return {
    ink: get("--ink"), paper: get("--paper"), masked: get("--masked"), maskedWash: get("--masked-wash"),
    wrong: get("--wrong"), font: get("--sans"),
  };
}

/**
 * The one quiet menu: the picture as SVG or PNG. `picture()` returns the current SVG or
 * canvas, so the export is of what the reader sees.
 * @param {HTMLElement} parent @param {() => Element} picture @param {string} name
 */
export function exportMenu(parent, picture, name) {
  const save = async (kind) => {
    const el = picture();
    if (el instanceof HTMLCanvasElement) {
      const png = await new Promise((resolve) => el.toBlob(resolve, "image/png"));
      if (kind === "png") return download(png, `${name}.png`);
      const url = el.toDataURL("image/png");
      const { width, height } = el.getBoundingClientRect();
      const text = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><image href="${url}" width="${width}" height="${height}"/></svg>`;
      return download(new Blob([text], { type: "image/svg+xml" }), `${name}.svg`);
    }
    const svgEl = /** @type {SVGSVGElement} */ (el);
    const text = standaloneSvg(svgEl);
    if (kind === "svg") return download(new Blob([text], { type: "image/svg+xml" }), `${name}.svg`);
    const box = svgEl.viewBox.baseVal;
    return download(await pngFromSvg(text, box.width, box.height), `${name}.png`);
  };
  const buttons = ["svg", "png"].map((kind) => {
    const b = html("button", { type: "button", "data-export": kind, text: kind.toUpperCase() });
    b.addEventListener("click", () => save(kind));
    return b;
  });
  const menu = html("details", { class: "figure-tools" }, html("summary", { "aria-label": "Export", text: "⋯" }), html("div", { class: "menu-items" }, ...buttons));
  parent.append(menu);
  return menu;
}

/**
 * anywidget's model, for a saved HTML page with no kernel behind it: get, set,
 * save_changes, on and off. `slices` (optional) holds the data of every layer and head,
 * swapped in when the reader picks another, as the Python side does in a notebook.
 * @param {Record<string, any>} state @param {Record<string, Record<string, any>>} [slices]
 */
export function standaloneModel(state, slices = {}) {
  /** @type {Map<string, Set<Function>>} */
  const listeners = new Map();
  const changed = new Set();
  const model = {
    get: (name) => state[name],
    set(name, value) {
      state[name] = value;
      changed.add(name);
      if ((name === "layer" || name === "head") && slices[`${state.layer},${state.head}`]) {
        for (const [k, v] of Object.entries(slices[`${state.layer},${state.head}`])) model.set(k, v);
      }
    },
    save_changes() {
      const names = [...changed];
      changed.clear();
      for (const name of names) for (const f of listeners.get(`change:${name}`) ?? []) f();
    },
    on(event, f) {
      if (!listeners.has(event)) listeners.set(event, new Set());
      listeners.get(event)?.add(f);
    },
    off(event, f) {
      listeners.get(event)?.delete(f);
    },
  };
  return model;
}
