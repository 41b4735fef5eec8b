// show_map(..., heads=[...])'s widget: several heads' maps side by side, each on the canvas grid
// (kit/canvas-grid.js) in the map's encoding (area ∝ weight, the masked triangle washed), the
// query row in focus and the cell under the pointer shared by all, so heads read against each
// other row by row. A head shown that breaks an invariant has its name in red.

import { makeCanvasGrid } from "../../site/static/js/kit/canvas-grid.js";
import { html } from "../../site/static/js/kit/dom.js";
import { elide } from "../../site/static/js/kit/format.js";
import { gridLegend } from "../../site/static/js/kit/grid.js";
import { colours, floats, headNames, sharedPointer, shell, tokensOf, weightText } from "./common.js";

const GAP = 16,
  LABELS = 78; // between two maps; a map's row labels and margin, at most

/** @param {{model: any, el: HTMLElement}} o */
export function renderSeveral({ model, el }) {
  const started = performance.now();
  const { tokens, keys, n, nk } = tokensOf(model);
  const shape = /** @type {number[]} */ (model.get("shape"));
  const picked = /** @type {number[][]} */ (model.get("picked"));
  const names = headNames(model, shape);
  const broken = new Set((model.get("broken") ?? []).map((b) => `${b.layer},${b.head}`));
  const { root, stop } = shell(el, model.get("css"), () => paint());
  root.classList.add("several");
  root.append(
    html(
      "div",
      { class: "nb-head" },
      html("div", {
        class: "nb-title",
        text: model.get("title") || `${picked.length} heads side by side, ${n} tokens`,
      }),
    ),
  );
  const row = html("div", { class: "panels" });
  // as many in a row as fit at 200 px or more, never wider than the widget: drawn 1:1
  const room = Math.max(280, (root.clientWidth || 720) - 24);
  const across = Math.max(1, Math.min(picked.length, Math.floor((room + GAP) / (200 + LABELS + GAP))));
  const side = Math.max(160, Math.min(360, (room - GAP * (across - 1)) / across - LABELS));
  const panels = picked.map(([layer, head]) => {
    const bad = broken.has(`${layer},${head}`);
    const name = html("div", {
      class: `panel-name${bad ? " failed" : ""}`,
      text: `${names.name(layer, head)}${bad ? " · breaks an invariant" : ""}`,
    });
    const holder = html("div", { class: "panel", "data-panel": `${layer},${head}` }, name);
    row.append(holder);
    return makeCanvasGrid(holder, {
      rows: tokens,
      columns: keys,
      side,
      label: `${names.name(layer, head)}: ${n} queries by ${nk} keys`,
    });
  });
  const hover = html("p", { class: "figure-note", "data-readout": "hover" });
  root.append(
    row,
    hover,
    gridLegend([
      { kind: "pos", text: "area ∝ weight" },
      ...(model.get("causal") ? [{ kind: /** @type {const} */ ("masked"), text: "masked by the causal mask" }] : []),
    ]),
  );

  let values = /** @type {Float32Array[]} */ ([]),
    under = /** @type {[number, number]|null} */ (null);
  const maskedFrom = (i) => (model.get("causal") ? i + 1 : nk);

  function paint() {
    const all = floats(model.get("panels"));
    values = picked.map((_, k) => all.subarray(k * n * nk, (k + 1) * n * nk));
    const c = colours(root);
    const scales = model.get("scales");
    panels.forEach((grid, k) => {
      grid.draw(values[k], { scale: scales[k], maskedFrom, colours: c });
    });
    focus();
  }

  function focus() {
    const at = model.get("row");
    for (const grid of panels) grid.focus(at, under);
    const said = under
      ? picked
          .map(
            ([layer, head], k) => `${names.name(layer, head, true)} ${weightText(values[k][under[0] * nk + under[1]])}`,
          )
          .join(" · ")
      : "";
    hover.textContent = under ? `${elide(tokens[under[0]], 10)} → ${elide(keys[under[1]], 10)}: ${said}` : "";
  }

  sharedPointer(row, panels, hover, (at) => {
    under = at;
    focus();
  });
  for (const grid of panels) {
    grid.root.addEventListener("click", (event) => {
      const at = grid.cellAt(event);
      if (!at) return;
      model.set("row", at[0]);
      model.save_changes();
    });
  }
  model.on("change:row", focus);
  model.on("change:panels", paint);
  paint();
  root.dataset.drawMs = (performance.now() - started).toFixed(1);
  return () => {
    stop();
    model.off("change:row", focus);
    model.off("change:panels", paint);
  };
}
