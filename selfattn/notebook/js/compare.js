// show_compare's widget: two maps of the same shape side by side and their difference B − A,
// each on the canvas grid (kit/canvas-grid.js) so the three share one encoding: area ∝
// weight, and in the difference filled where B is larger and hollow where A is (sign is
// shape, not hue). The pointer and the picked row move on all three at once. A rectangular
// map (cross-attention, a sentence pair) has keys of its own: queries down, keys across.

import { makeCanvasGrid } from "../../site/static/js/kit/canvas-grid.js";
import { html } from "../../site/static/js/kit/dom.js";
import { elide, fixed } from "../../site/static/js/kit/format.js";
import { gridLegend } from "../../site/static/js/kit/grid.js";
import { colours, floats, headNames, makeSteppers, sharedPointer, shell, tokensOf } from "./common.js";

const signed = (v) => `${v > 0 ? "+" : v < 0 ? "−" : ""}${fixed(Math.abs(v), 3)}`;

/** @param {{model: any, el: HTMLElement}} o */
export function renderCompare({ model, el }) {
  const started = performance.now();
  const { tokens, keys, n, nk, size } = tokensOf(model);
  const shape = /** @type {number[]} */ (model.get("shape"));
  const [nameA, nameB] = model.get("names");
  const { root, stop } = shell(el, model.get("css"), () => paint());
  root.classList.add("compare");
  const pickers = html("div", { class: "pickers" });
  root.append(
    html(
      "div",
      { class: "nb-head" },
      html("div", { class: "nb-title", text: `${nameA} and ${nameB}, ${size}, and ${nameB} − ${nameA}` }),
      pickers,
    ),
  );
  const { axes, update: showSteps } = makeSteppers(pickers, model, shape);
  const names = headNames(model, shape);
  const row = html("div", { class: "panels" });
  // three maps in one row where the widget holds them at 240 px or more, else one a row;
  // never wider than the widget, so the canvas is drawn 1:1 and its 11 px labels stay 11 px
  const room = Math.max(280, (root.clientWidth || 720) - 24);
  const across = (room - 2 * 16) / 3 - 78; // 78: the row labels and margin, at most
  const side = Math.max(160, Math.min(340, Math.max(240, Math.max(n, nk) * 6), across >= 240 ? across : room - 78));
  const titles = [];
  const panels = [nameA, nameB, `${nameB} − ${nameA}`].map((name, k) => {
    const title = html("div", { class: "panel-name", text: name });
    titles.push(title);
    const holder = html("div", { class: "panel", "data-panel": ["a", "b", "diff"][k] }, title);
    row.append(holder);
    return makeCanvasGrid(holder, { rows: tokens, columns: keys, side, label: `${name}: ${n} queries by ${nk} keys` });
  });
  const out = html("p", { class: "figure-note", "data-readout": "largest" });
  const hover = html("p", { class: "figure-note", "data-readout": "hover" });
  const heads = html("div", { class: "heads" });
  const failures = html("ul", { class: "checks", "data-readout": "checks" });
  root.append(
    row,
    failures,
    out,
    hover,
    heads,
    gridLegend([
      { kind: "pos", text: `area ∝ weight; in ${nameB} − ${nameA}, filled where ${nameB} is larger` },
      { kind: "neg", text: `hollow where ${nameA} is larger` },
      ...(model.get("causal") ? [{ kind: /** @type {const} */ ("masked"), text: "masked by the causal mask" }] : []),
      { kind: "leak", text: "breaks an invariant" },
    ]),
  );

  let values = [],
    picked = 0,
    under = /** @type {[number, number]|null} */ (null);
  const maskedFrom = (i) => (model.get("causal") ? i + 1 : nk);
  const cell = ([i, j]) => `${elide(tokens[i], 10)} → ${elide(keys[j], 10)}`;
  // a cell with its positions, as the map names one: "0 · the → 3 · the" (a word repeats)
  const place = ([i, j]) => `${i} · ${elide(tokens[i], 10)} → ${j} · ${elide(keys[j], 10)}`;

  function paint() {
    values = ["weights_a", "weights_b", "diff"].map((name) => floats(model.get(name)));
    const c = colours(root);
    // A's and B's wrong cells and rows as the map draws them: Python checked both
    const found = [model.get("checks_a") ?? [], model.get("checks_b") ?? [], []];
    panels.forEach((grid, k) => {
      const failed = found[k].filter((check) => !check.ok);
      grid.draw(values[k], {
        scale: k === 2 ? model.get("dscale") : model.get("scale"),
        maskedFrom,
        colours: c,
        wrong: failed.flatMap((check) => check.cells),
        wrongRows: failed.filter((check) => !check.cells.length).flatMap((check) => check.rows),
      });
      titles[k].classList.toggle("failed", failed.length > 0);
    });
    failures.replaceChildren(
      ...[nameA, nameB].flatMap((name, k) =>
        found[k]
          .filter((check) => !check.ok)
          .map((check) => {
            const li = html("li", { class: "failed", "data-invariant": check.invariant });
            li.append(html("span", { class: "mark", text: "✗" }), html("span", { text: `${name}: ${check.message}` }));
            return li;
          }),
      ),
    );
    const { row: i, column: j, value } = model.get("largest");
    out.textContent = value
      ? `largest difference: ${place([i, j])}, ${nameB} − ${nameA} = ${signed(value)}`
      : `${nameA} and ${nameB} are equal here`;
    showSteps();
    const differ = /** @type {number[]} */ (model.get("differ"));
    const most = differ
      .map((d, k) => [d, k])
      .filter(([d]) => d > 0)
      .sort((a, b) => b[0] - a[0])
      .slice(0, axes.length ? 5 : 0);
    heads.replaceChildren(
      ...(most.length ? [html("p", { text: `heads that differ most (largest |${nameB} − ${nameA}|):` })] : []),
      ...most.map(([d, k]) => {
        const { layer, head } = names.at(k);
        const go = html("button", { type: "button", class: "go", text: `${names.name(layer, head)}: ${fixed(d, 3)}` });
        go.addEventListener("click", () => {
          model.set("layer", layer);
          model.set("head", head);
          model.save_changes();
        });
        return go;
      }),
    );
    focus();
  }

  function focus() {
    for (const grid of panels) grid.focus(picked, under);
    const at = under ? under[0] * nk + under[1] : 0;
    hover.textContent = under
      ? `${cell(under)}: ${nameA} ${fixed(values[0][at], 3)} · ${nameB} ${fixed(values[1][at], 3)} · ${nameB} − ${nameA} ${signed(values[2][at])}`
      : "";
  }

  sharedPointer(row, panels, hover, (at) => {
    under = at;
    focus();
  });
  for (const grid of panels) {
    grid.root.addEventListener("click", (event) => {
      const at = grid.cellAt(event);
      if (at) picked = at[0];
      focus();
    });
    grid.root.addEventListener("keydown", (event) => {
      const by = { ArrowUp: -1, ArrowDown: 1 }[event.key];
      if (!by) return;
      event.preventDefault();
      picked = Math.min(n - 1, Math.max(0, picked + by));
      focus();
    });
  }
  model.on("change:diff", paint);
  paint();
  root.dataset.drawMs = (performance.now() - started).toFixed(1);
  return () => {
    stop();
    model.off("change:diff", paint);
  };
}
