// show_tokens's widget, as CircuitsVis colours text: the sentence as it reads, each token tinted
// by the weight the query in focus gives it (in the value hue, as the article draws weights,
// its strength ∝ √weight as the map's squares' area), the query itself outlined in the focus
// colour, and its top k keys listed with their weights. Hover a token to make it the query;
// ↑ ↓ (← →) step through.

import { html } from "../../site/static/js/kit/dom.js";
import { floats, makeSteppers, shell, tokensOf, weightText } from "./common.js";

const TOP = 5; // keys listed under the text

/** @param {{model: any, el: HTMLElement}} o */
export function renderTokens({ model, el }) {
  const started = performance.now();
  const { tokens, keys, n, nk } = tokensOf(model);
  const { root, stop } = shell(el, model.get("css"), () => {});
  root.classList.add("tokens-view");
  const pickers = html("div", { class: "pickers" });
  root.append(
    html(
      "div",
      { class: "nb-head" },
      html("div", { class: "nb-title", text: model.get("title") || `attention on the text, ${n} tokens` }),
      pickers,
    ),
  );
  const { update: showSteps } = makeSteppers(pickers, model, model.get("shape"));
  const text = html("p", {
    class: "tinted",
    tabindex: "0",
    role: "group",
    "aria-label": "the text, each token tinted by the weight the query gives it",
  });
  const spans = keys.map((t, j) => html("span", { class: "tint", "data-key": String(j), text: t }));
  text.append(...spans.flatMap((s) => [s, " "]));
  const said = html("p", { class: "figure-note", "data-readout": "query" });
  const top = html("ol", { class: "top-keys", "data-readout": "top" });
  root.append(text, said, top);
  let weights = floats(model.get("weights"));

  function draw() {
    const row = model.get("row");
    const w = weights.subarray(row * nk, row * nk + nk);
    const most = Math.max(...w, 1e-9);
    spans.forEach((s, j) => {
      const share = Math.sqrt(Math.max(0, w[j]) / most);
      s.style.backgroundColor = `color-mix(in srgb, var(--value) ${Math.round(share * 55)}%, transparent)`;
      s.classList.toggle("current", nk === n && j === row);
      s.title = `${keys[j]}: ${weightText(w[j])}`;
    });
    said.textContent = `query ${row} · ${tokens[row]}: each token tinted by the weight it gets (strongest ${weightText(most)})`;
    const ranked = [...w.keys()].sort((a, b) => w[b] - w[a]).slice(0, Math.min(TOP, nk));
    top.replaceChildren(...ranked.map((j) => html("li", { text: `${keys[j]} ${weightText(w[j])}` })));
    showSteps();
  }

  const pick = (i) => {
    model.set("row", Math.min(n - 1, Math.max(0, i)));
    model.save_changes();
  };
  // the tokens are the keys; in a square map each is a query too, and hovering it asks it
  text.addEventListener("pointerover", (event) => {
    const at = /** @type {HTMLElement} */ (event.target).dataset?.key;
    if (at !== undefined && nk === n) pick(Number(at));
  });
  text.addEventListener("keydown", (event) => {
    const by = { ArrowUp: -1, ArrowLeft: -1, ArrowDown: 1, ArrowRight: 1 }[event.key];
    if (!by) return;
    event.preventDefault();
    pick(model.get("row") + by);
  });
  const onWeights = () => {
    weights = floats(model.get("weights"));
    draw();
  };
  model.on("change:weights", onWeights);
  model.on("change:row", draw);
  draw();
  root.dataset.drawMs = (performance.now() - started).toFixed(1);
  return () => {
    stop();
    model.off("change:weights", onWeights);
    model.off("change:row", draw);
  };
}
