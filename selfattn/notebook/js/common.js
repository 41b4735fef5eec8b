// What both notebook widgets share: a shadow root so the notebook's styles and ours never
// meet, the theme of whatever page holds the widget, tensors sent as float32 bytes (or, in a
// saved file, 8- or 16-bit codes, gzipped but for the head it opens on), the one quiet
// export menu, and a stand-in for anywidget's model in a saved HTML file.

import { download, pngFromSvg, pngOf, standaloneSvg } from "../../site/static/js/export.js";
import { html } from "../../site/static/js/kit/dom.js";
import { fixed, scientific } from "../../site/static/js/kit/format.js";

/**
 * A weight with its significant digits: three decimals from 0.01, two significant digits
 * below (0.0025, 0.00049), × 10⁻ⁿ below 10⁻⁴. A uniform row of 2,048 tokens printed its
 * largest weight as 0.000; three decimals say nothing of a diffuse row.
 * @param {number} x @returns {string}
 */
export function weightText(x) {
  if (x === 0 || !Number.isFinite(x) || Math.abs(x) >= 0.01) return fixed(x, 3);
  if (Math.abs(x) < 1e-4) return scientific(x, 2);
  return fixed(x, 1 - Math.floor(Math.log10(Math.abs(x) * (1 + 1e-12))));
}

/**
 * A widget's bytes: a binary buffer as a notebook sends it (a DataView), or base64 as a saved
 * page holds it. @param {string|ArrayBufferView} data @returns {Uint8Array}
 */
export function bytesOf(data) {
  if (typeof data !== "string") return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  // the browser's own decoder (2025 on) is several times faster than a loop still cold
  const native = /** @type {any} */ (Uint8Array).fromBase64;
  if (native) return native(data);
  const binary = atob(data);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i); // Uint8Array.from(…, fn) is 10× slower
  return bytes;
}

/**
 * The weights as a Float32Array: little-endian float32 bytes (a notebook's binary buffer, or
 * base64 in a saved page), or the array a saved file's stand-in model has already unpacked.
 * @param {string|DataView|Float32Array} weights
 */
export function floats(weights) {
  if (weights instanceof Float32Array) return weights;
  const bytes = bytesOf(weights);
  // a view on a buffer at an offset not a multiple of 4 cannot be read as float32 in place
  const at = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
  return new Float32Array(at.buffer, at.byteOffset, at.byteLength / 4);
}

/**
 * Codes of 8 or 16 bits as weights again: each row's float32 scale comes first, then the
 * codes, and a weight is code × its row's scale (store.py: codes relative to the row's
 * largest weight, so a diffuse row of small weights keeps its shape); 32 bits are float32 as stored.
 * @param {number} bits @param {ArrayBufferLike} buffer @param {number} rows @returns {Float32Array}
 */
function decoded(bits, buffer, rows) {
  if (bits === 32) return new Float32Array(buffer);
  const scale = new Float32Array(buffer, 0, rows);
  const codes = bits === 8 ? new Uint8Array(buffer, 4 * rows) : new Uint16Array(buffer, 4 * rows);
  const out = new Float32Array(codes.length);
  const width = codes.length / rows;
  for (let i = 0; i < rows; i += 1) {
    const s = scale[i];
    for (let j = i * width; j < (i + 1) * width; j += 1) out[j] = codes[j] * s;
  }
  return out;
}

/**
 * A saved file's weights: `{bits, rows, codes}` (base64, decoded at once: the head the page
 * opens on) or `{bits, rows, gzip}` (unpacked with the browser's own gzip, a stream and a few tasks).
 * @param {{bits: number, rows: number, gzip?: string, codes?: string}} packed @returns {Promise<Float32Array>|Float32Array}
 */
function unpack({ bits, rows, gzip, codes }) {
  if (codes !== undefined) return decoded(bits, bytesOf(codes).buffer, rows);
  const stream = new Blob([/** @type {BlobPart} */ (bytesOf(gzip ?? ""))])
    .stream()
    .pipeThrough(new DecompressionStream("gzip"));
  return new Response(stream).arrayBuffer().then((buffer) => decoded(bits, buffer, rows));
}

/** A slice with its packed weights unpacked. @param {Record<string, any>} slice */
async function unpacked(slice) {
  const w = slice.weights;
  return w && typeof w === "object" && "bits" in w ? { ...slice, weights: await unpack(w) } : slice;
}

/**
 * Any CSS colour as sRGB bytes [r, g, b, a], the browser drawing it on one pixel: a page's
 * computed colours come as rgb(), but also as color(srgb …) (marimo's dark theme), oklch()…
 * @param {string} colour @returns {Uint8ClampedArray}
 */
export function rgbaOf(colour) {
  // an opaque rgb(), as computed colours mostly come, is read as written: a canvas and its
  // pixel read back cost a first drawing a millisecond
  const opaque = /^rgba?\((\d+),\s*(\d+),\s*(\d+)(?:,\s*1)?\)$/.exec(colour);
  if (opaque) return new Uint8ClampedArray([Number(opaque[1]), Number(opaque[2]), Number(opaque[3]), 255]);
  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = 1;
  const ctx = /** @type {CanvasRenderingContext2D} */ (canvas.getContext("2d", { willReadFrequently: true }));
  ctx.fillStyle = colour; // a colour the browser cannot read leaves the pixel clear
  ctx.fillRect(0, 0, 1, 1);
  return ctx.getImageData(0, 0, 1, 1).data;
}

/** Whether the page around `el` is dark: the first opaque background up the tree decides. */
function darkAround(el) {
  /** @type {Element|null} */
  let node = el;
  while (node) {
    const background = getComputedStyle(node).backgroundColor;
    if (background && background !== "rgba(0, 0, 0, 0)" && background !== "transparent") {
      const [r, g, b, a] = rgbaOf(background);
      if (a > 127) return 0.2126 * r + 0.7152 * g + 0.0722 * b < 128;
    }
    const parent = node.parentElement;
    node = parent ?? /** @type {ShadowRoot} */ (node.getRootNode()).host ?? null;
  }
  return matchMedia("(prefers-color-scheme: dark)").matches;
}

// Python prints a still picture of the map as the output after the widget's (picture.py),
// for wherever the widget cannot draw; where it does, the still is hidden
const STILL_RULE = [".jp-OutputArea-child", ".output_area"]
  .map((output) => `${output}:has(.selfattn-host) + ${output}:has(.selfattn-still)`)
  .join(", ");

/** Hide the still picture printed after this widget's output. @param {HTMLElement} el */
export function hideStill(el) {
  el.classList.add("selfattn-host");
  if (!document.getElementById("selfattn-still-rule")) {
    document.head.append(html("style", { id: "selfattn-still-rule", text: `${STILL_RULE} { display: none; }` }));
  }
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
  // a notebook may render a widget before it puts it on the page, or take a cell scrolled
  // far away out of it; off the page no style is computed (every colour reads "", and a
  // canvas painted then is black), so the theme is applied, and the picture painted again,
  // once the widget is on the page
  let stale = !el.isConnected;
  const apply = () => {
    if (!el.isConnected) {
      stale = true;
      return;
    }
    const theme = darkAround(el) ? "dark" : "light";
    if (root.dataset.theme !== theme || stale) {
      stale = false;
      root.dataset.theme = theme;
      onTheme();
    }
  };
  root.dataset.theme = el.isConnected && darkAround(el) ? "dark" : "light";
  const watch = new MutationObserver(() => requestAnimationFrame(apply));
  for (const target of [document.documentElement, document.body]) {
    watch.observe(target, {
      attributes: true,
      attributeFilter: ["class", "data-theme", "data-jp-theme-light", "style"],
    });
  }
  const back = new IntersectionObserver(() => stale && apply());
  back.observe(el);
  return {
    root,
    stop: () => {
      watch.disconnect();
      back.disconnect();
    },
  };
}

/** The palette as the canvas needs it: computed colours of the widget's CSS variables. */
export function colours(root) {
  const style = getComputedStyle(root);
  const get = (name) => style.getPropertyValue(name).trim();
  return {
    ink: get("--ink"),
    paper: get("--paper"),
    masked: get("--masked"),
    maskedWash: get("--masked-wash"),
    wrong: get("--wrong"),
    font: get("--sans"),
  };
}

/**
 * One pointer over maps drawn side by side (show_compare's three, several heads'): the cell
 * under it is the same cell on each, `onCell` marks it on all of them and writes it in
 * `hover`, and a tip at the pointer repeats what `hover` says, on the side of the pointer with
 * more room; off the maps, both clear.
 * @param {HTMLElement} row the maps' row, positioned: the tip is placed in it
 * @param {{root: HTMLCanvasElement, cellAt: (event: MouseEvent) => number[]|null}[]} grids
 * @param {HTMLElement} hover @param {(under: [number, number]|null) => void} onCell
 */
export function sharedPointer(row, grids, hover, onCell) {
  const tip = html("div", { class: "tip", "data-readout": "tip" });
  row.prepend(tip);
  for (const grid of grids) {
    grid.root.addEventListener("pointermove", (event) => {
      const under = /** @type {[number, number]|null} */ (grid.cellAt(event));
      const box = row.getBoundingClientRect();
      tip.style.display = under ? "block" : "none";
      tip.style.left = `${event.clientX - box.left}px`;
      tip.style.top = `${event.clientY - box.top}px`;
      tip.classList.toggle("flip", event.clientX - box.left > box.width / 2); // stays inside the row
      onCell(under);
      tip.textContent = hover.textContent;
    });
    grid.root.addEventListener("pointerleave", () => {
      tip.style.display = "none";
      onCell(null);
    });
  }
}

/**
 * The one quiet menu: the picture as SVG or PNG. `picture()` returns the current SVG or
 * canvas, so the export is of what the reader sees; a canvas is pixels, so it offers PNG
 * only (`kinds`), and says so, rather than a PNG dressed as an SVG.
 * @param {HTMLElement} parent @param {() => Element} picture @param {string} name
 * @param {string[]} [kinds]
 */
export function exportMenu(parent, picture, name, kinds = ["svg", "png"]) {
  const save = async (kind) => {
    const el = picture();
    if (el instanceof HTMLCanvasElement) {
      // the map's canvas is clear where the page shows through: the PNG gets the paper
      const flat = document.createElement("canvas");
      flat.width = el.width;
      flat.height = el.height;
      const ctx = /** @type {CanvasRenderingContext2D} */ (flat.getContext("2d"));
      ctx.fillStyle = getComputedStyle(el).getPropertyValue("--paper").trim() || "#fff";
      ctx.fillRect(0, 0, flat.width, flat.height);
      ctx.drawImage(el, 0, 0);
      return download(pngOf(flat), `${name}.png`);
    }
    const svgEl = /** @type {SVGSVGElement} */ (el);
    const text = standaloneSvg(svgEl);
    if (kind === "svg") return download(new Blob([text], { type: "image/svg+xml" }), `${name}.svg`);
    const box = svgEl.viewBox.baseVal;
    return download(await pngFromSvg(text, box.width, box.height), `${name}.png`);
  };
  const buttons = kinds.map((kind) => {
    const text = kind === "png" && kinds.length === 1 ? "PNG (the canvas, as pixels)" : kind.toUpperCase();
    const b = html("button", { type: "button", "data-export": kind, text });
    b.addEventListener("click", () => save(kind));
    return b;
  });
  const menu = html(
    "details",
    { class: "figure-tools" },
    html("summary", { "aria-label": "Export", text: "⋯" }),
    html("div", { class: "menu-items" }, ...buttons),
  );
  parent.append(menu);
  return menu;
}

/**
 * anywidget's model, for a saved HTML page with no kernel behind it: get, set,
 * save_changes, on and off. `slices` (optional) holds the data of every layer and head kept,
 * unpacked and swapped in when the reader picks another, as the Python side does in a
 * notebook; changes reach the listeners in the order they were saved.
 * @param {Record<string, any>} state @param {Record<string, Record<string, any>>} [slices]
 */
export async function standaloneModel(state, slices = {}) {
  /** @type {Map<string, Set<Function>>} */
  const listeners = new Map();
  const changed = new Set();
  Object.assign(state, await unpacked(slices[`${state.layer},${state.head}`] ?? state));
  let saved = Promise.resolve();
  const model = {
    get: (name) => state[name],
    set(name, value) {
      state[name] = value;
      changed.add(name);
    },
    save_changes() {
      const names = [...changed];
      changed.clear();
      const slice = (names.includes("layer") || names.includes("head")) && slices[`${state.layer},${state.head}`];
      saved = saved.then(async () => {
        if (slice) {
          const data = await unpacked(slice);
          Object.assign(state, data);
          names.push(...Object.keys(data));
        }
        for (const name of new Set(names)) for (const f of listeners.get(`change:${name}`) ?? []) f();
      });
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

/**
 * A map's query tokens and its key tokens: a rectangular map (cross-attention, a sentence
 * pair) has keys of its own, a square map's keys are its queries; with their counts and the
 * size as a title says it ("11 queries × 6 keys", "5 tokens").
 * @param {any} model
 */
export function tokensOf(model) {
  const tokens = /** @type {string[]} */ (model.get("tokens"));
  const keyTokens = /** @type {string[]} */ (model.get("key_tokens") ?? []);
  const paired = keyTokens.length > 0;
  const keys = paired ? keyTokens : tokens;
  const n = tokens.length,
    nk = keys.length;
  return { tokens, keys, n, nk, paired, size: paired ? `${n} queries × ${nk} keys` : `${n} tokens` };
}

/**
 * The layer numbers the input gave its layers (a TransformerLens cache of layer 7 alone is
 * layer 7), or 0, 1, ...: `layer` holds one of them, as in Python. @param {any} model
 * @param {number[]} shape @returns {number[]}
 */
export function layerIds(model, shape) {
  const ids = model.get("layer_ids");
  if (ids?.length) return ids;
  return Array.from({ length: shape.length === 4 ? shape[0] : 1 }, (_, k) => k);
}

/**
 * A head's name on screen, numbered as Python numbers it (layers as the input named them,
 * heads from 0), and its place in the layer-major list of every head.
 * @param {any} model @param {number[]} shape
 */
export function headNames(model, shape) {
  const ids = layerIds(model, shape);
  const heads = shape.length === 4 ? shape[1] : shape.length === 3 ? shape[0] : 1;
  return {
    /** @param {number} k */
    at: (k) => ({ layer: ids[Math.floor(k / heads)], head: k % heads }),
    /** @param {number} layer @param {number} head */
    index: (layer, head) => Math.max(0, ids.indexOf(layer)) * heads + head,
    /** @param {number} layer @param {number} head @param {boolean} [short] */
    name: (layer, head, short = false) => {
      if (shape.length !== 4) return short ? `H${head}` : `head ${head}`;
      return short ? `L${layer} H${head}` : `layer ${layer} · head ${head}`;
    },
  };
}

/**
 * Layer and head steppers (◀ 2 of 0–11 ▶), only for the axes the tensor has, numbered as
 * Python numbers them; a saved file steps through the layers and heads it kept. `update`
 * writes the current values. @param {HTMLElement} parent @param {any} model @param {number[]} shape
 */
export function makeSteppers(parent, model, shape) {
  const axes = shape.length === 4 ? ["layer", "head"] : shape.length === 3 ? ["head"] : [];
  const kept = model.get("kept") ?? {};
  const steppers = axes.map((axis) => {
    const count = shape[axes.length === 2 && axis === "head" ? 1 : 0];
    const all = axis === "layer" ? layerIds(model, shape) : Array.from({ length: count }, (_, k) => k);
    const values = kept[axis] ?? all;
    const name = html("span", { class: "step-name", "data-readout": axis });
    const step = (by) => {
      const at = values.indexOf(model.get(axis));
      model.set(axis, values[(at + by + values.length) % values.length]);
      model.save_changes();
    };
    const back = html("button", { type: "button", "aria-label": `previous ${axis}`, text: "◀" });
    const next = html("button", { type: "button", "aria-label": `next ${axis}`, text: "▶" });
    back.addEventListener("click", () => step(-1));
    next.addEventListener("click", () => step(1));
    // a jump straight to any layer or head: twelve layers are not eleven clicks away
    const jump = html("select", { class: "jump", "aria-label": `jump to ${axis}` });
    for (const v of values) jump.append(html("option", { value: String(v), text: String(v) }));
    jump.addEventListener("change", () => {
      model.set(axis, Number(jump.value));
      model.save_changes();
    });
    parent.append(
      html(
        "div",
        { class: "control stepper" },
        html("span", { class: "label", text: axis }),
        html("div", { class: "step-row" }, back, name, next, jump),
      ),
    );
    return { axis, range: `${all[0]}–${all[all.length - 1]}`, name, jump };
  });
  const update = () => {
    for (const { axis, range, name, jump } of steppers) {
      name.textContent = `${model.get(axis)} of ${range}`;
      jump.value = String(model.get(axis));
    }
  };
  return { axes, update };
}
