// show_heads's widget: every layer × head as a small map, in layer order or sorted by one
// summary the Python side computed (entropy, largest weight, first token, previous token, or
// the reader's own), over the full map (map.js) of the head last clicked. Each small map is
// a canvas of codes Python pooled and shaded (summaries.py): 0..254 ink, 255 masked.

import { html } from "../../site/static/js/kit/dom.js";
import { fixed } from "../../site/static/js/kit/format.js";
import { bytesOf, colours, headNames, rgbaOf, shell } from "./common.js";
import { renderMap } from "./map.js";

const MASKED = 255;
const LAYER_ORDER = "layer, head";
// a small map's button (its 64 px canvas, padding and border) and the gap between two, as
// widget.css's .thumb and .thumbs draw them
const THUMB = 76,
  GAP = 6;

/** @param {{model: any, el: HTMLElement}} o */
export function renderHeads({ model, el }) {
  const started = performance.now();
  const shape = /** @type {number[]} */ (model.get("shape"));
  const heads = shape.length === 4 ? shape[1] : shape.length === 3 ? shape[0] : 1;
  const total = shape.slice(0, -2).reduce((a, b) => a * b, 1);
  const side = model.get("side");
  const codes = bytesOf(model.get("thumbs"));
  const summaries = /** @type {Record<string, number[]>} */ (model.get("summaries"));
  const { root, stop } = shell(el, model.get("css"), () => paint());
  root.classList.add("heads-view");
  const order = html("select", { "aria-label": "sort heads by" });
  for (const name of [LAYER_ORDER, ...Object.keys(summaries)])
    order.append(html("option", { value: name, text: name }));
  order.value = model.get("by") || LAYER_ORDER;
  const flip = html("button", { type: "button", class: "flip", "aria-pressed": "true" });
  const note = html("p", { class: "figure-note", "data-readout": "order" });
  const head = html(
    "div",
    { class: "nb-head" },
    html("div", { class: "nb-title", text: `${total} heads: click one to open it below` }),
    html("label", { class: "control" }, "sort by ", order),
    flip,
  );
  const grid = html("div", { class: "thumbs" });
  const mapHost = html("div");
  root.append(head, note, grid, mapHost);

  const names = headNames(model, shape);
  const name = (k) => names.name(names.at(k).layer, names.at(k).head, true);
  // a small map too small for a pixel a cell is pooled, as the still and the long map say
  const cells = Math.ceil(shape[shape.length - 1] / side);
  const pooled = cells > 1 ? `; each small map's pixel is the largest weight of ${cells} × ${cells} cells` : "";
  const broken = new Set((model.get("broken") ?? []).map((b) => names.index(b.layer, b.head)));
  const thumbs = Array.from({ length: total }, (_, k) => {
    const canvas = html("canvas", { width: side, height: side, "aria-hidden": "true" });
    const value = html("span", { class: "value" });
    const button = html(
      "button",
      { type: "button", class: `thumb${broken.has(k) ? " broken" : ""}`, "data-head": k },
      canvas,
      html("span", { text: name(k) }),
      value,
    );
    button.title = Object.entries(summaries)
      .map(([s, v]) => `${s} ${fixed(v[k], 3)}`)
      .join("\n");
    button.addEventListener("click", () => {
      model.set("layer", names.at(k).layer);
      model.set("head", names.at(k).head);
      model.save_changes();
    });
    return { button, canvas, value };
  });

  /** Shade every small map in the current theme's ink, masked blocks in its wash. */
  function paint() {
    const c = colours(root);
    const [paper, ink, wash] = [
      rgbaOf(c.paper),
      rgbaOf(c.ink),
      rgbaOf(getComputedStyle(root).getPropertyValue("--masked").trim() || c.masked),
    ];
    const cells = side * side;
    thumbs.forEach(({ canvas }, k) => {
      const ctx = /** @type {CanvasRenderingContext2D} */ (canvas.getContext("2d"));
      const image = ctx.createImageData(side, side);
      for (let p = 0; p < cells; p += 1) {
        const code = codes[k * cells + p];
        const a = code === MASKED ? 0.18 : code / 254;
        const to = code === MASKED ? wash : ink;
        for (let ch = 0; ch < 3; ch += 1) image.data[p * 4 + ch] = paper[ch] + (to[ch] - paper[ch]) * a;
        image.data[p * 4 + 3] = 255;
      }
      ctx.putImageData(image, 0, 0);
    });
  }

  /**
   * Columns for the sorted run: as many rows as the width needs, and the maps shared evenly
   * among them, so 16 heads where 15 fit make two rows of 8, not 15 and one left alone.
   */
  function balanced() {
    const fit = Math.max(1, Math.floor(((root.clientWidth || 720) + GAP) / (THUMB + GAP)));
    return Math.ceil(total / Math.ceil(total / fit));
  }

  /** Lay the small maps out: a layer per row, or one run sorted by the chosen summary. */
  function arrange() {
    const by = order.value,
      down = flip.getAttribute("aria-pressed") === "true";
    const values = summaries[by];
    const ranked = Array.from({ length: total }, (_, k) => k);
    if (values) ranked.sort((a, b) => (down ? values[b] - values[a] : values[a] - values[b]));
    grid.style.gridTemplateColumns = `repeat(${values ? balanced() : heads}, max-content)`;
    grid.classList.toggle("sorted", Boolean(values));
    grid.replaceChildren(...ranked.map((k) => thumbs[k].button));
    thumbs.forEach(({ value }, k) => {
      value.textContent = values ? fixed(values[k], 3) : "";
    });
    flip.textContent = down ? "high first" : "low first";
    flip.hidden = !values;
    note.textContent =
      (values
        ? `sorted by ${by}, mean over query rows; ${down ? "highest" : "lowest"} first`
        : "a row per layer, a column per head") + pooled;
  }

  const onPick = () => {
    const k = names.index(model.get("layer"), model.get("head"));
    thumbs.forEach(({ button }, j) => {
      button.classList.toggle("current", j === k);
    });
  };
  order.addEventListener("change", () => {
    model.set("by", order.value === LAYER_ORDER ? "" : order.value);
    model.save_changes();
    arrange();
  });
  flip.addEventListener("click", () => {
    flip.setAttribute("aria-pressed", String(flip.getAttribute("aria-pressed") !== "true"));
    arrange();
  });
  model.on("change:layer", onPick);
  model.on("change:head", onPick);
  paint();
  arrange();
  onPick();
  // a sorted run is shared among rows by the width: laid out again when that changes
  let arrangedFor = root.clientWidth;
  const resized = new ResizeObserver(() => {
    if (Math.abs(root.clientWidth - arrangedFor) < THUMB / 2) return;
    arrangedFor = root.clientWidth;
    arrange();
  });
  resized.observe(root);
  root.dataset.headsMs = (performance.now() - started).toFixed(1);
  const unmap = renderMap({ model, el: mapHost });
  root.dataset.drawMs = (performance.now() - started).toFixed(1);
  return () => {
    stop();
    resized.disconnect();
    unmap();
    model.off("change:layer", onPick);
    model.off("change:head", onPick);
  };
}
